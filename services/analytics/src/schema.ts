import { bigint, date, integer, jsonb, pgSchema, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';

export const analytics = pgSchema('analytics');

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });
const day = () => date('day', { mode: 'string' }).notNull();
const count = (name: string) => integer(name).notNull().default(0);

export const summaryDimensions = ['day', 'clickId', 'referrer', 'campaign'] as const;
export type SummaryDimension = (typeof summaryDimensions)[number];

export const attributionModels = ['first', 'last'] as const;
export type AttributionModel = (typeof attributionModels)[number];

export const playbackDimensions = ['episode', 'rung'] as const;
export type PlaybackDimension = (typeof playbackDimensions)[number];

export const daily = analytics.table(
  'daily',
  {
    day: day(),
    dimension: text('dimension', { enum: summaryDimensions }).notNull(),
    model: text('model', { enum: attributionModels }).notNull(),
    key: text('key').notNull(),
    visits: count('visits'),
    landings: count('landings'),
    pageViews: count('page_views'),
    videoViews: count('video_views'),
    plays: count('plays'),
    unlocks: count('unlocks'),
    orders: count('orders'),
    revenueAmount: bigint('revenue_amount', { mode: 'number' }).notNull().default(0),
    refundedAmount: bigint('refunded_amount', { mode: 'number' }).notNull().default(0),
    vipStarts: count('vip_starts'),
    vipCancels: count('vip_cancels'),
  },
  (table) => [primaryKey({ columns: [table.dimension, table.model, table.day, table.key] })],
);

/** The dimensions a touch can bring: all but `day`. */
export type TouchDimension = Exclude<SummaryDimension, 'day'>;

export const touches = analytics.table(
  'touches',
  {
    userId: text('user_id').notNull(),
    dimension: text('dimension', { enum: ['clickId', 'referrer', 'campaign'] }).notNull(),
    firstKey: text('first_key').notNull(),
    firstAt: at('first_at').notNull(),
    lastKey: text('last_key').notNull(),
    lastAt: at('last_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.dimension] })],
);

export const mergedGuests = analytics.table('merged_guests', {
  guestId: text('guest_id').primaryKey(),
  accountId: text('account_id').notNull(),
});

export const funnel = analytics.table('funnel', {
  userId: text('user_id').primaryKey(),
  landedAt: at('landed_at'),
  firstVideoViewAt: at('first_video_view_at'),
  firstConvertedAt: at('first_converted_at'),
  registeredAt: at('registered_at'),
  firstPaidAt: at('first_paid_at'),
});

export const countedOnce = analytics.table('counted_once', {
  reference: text('reference').primaryKey(),
});

export const playback = analytics.table(
  'playback',
  {
    day: day(),
    dimension: text('dimension', { enum: playbackDimensions }).notNull(),
    key: text('key').notNull(),
    plays: count('plays'),
    errors: count('errors'),
    rebufferMs: bigint('rebuffer_ms', { mode: 'number' }).notNull().default(0),
    watchMs: bigint('watch_ms', { mode: 'number' }).notNull().default(0),
    rebufferCount: count('rebuffer_count'),
    exitsBeforeStart: count('exits_before_start'),
    startFailures: count('start_failures'),
  },
  (table) => [primaryKey({ columns: [table.dimension, table.day, table.key] })],
);

export const playbackStartup = analytics.table(
  'playback_startup',
  {
    day: day(),
    dimension: text('dimension', { enum: playbackDimensions }).notNull(),
    key: text('key').notNull(),
    leMs: integer('le_ms').notNull(),
    samples: count('samples'),
  },
  (table) => [primaryKey({ columns: [table.dimension, table.day, table.key, table.leMs] })],
);

export const conversionDestinations = ['facebook', 'tiktok'] as const;
export type ConversionDestination = (typeof conversionDestinations)[number];

/** Conversions on their way to an advertiser's API (migrations/0002_conversions.sql). */
export const conversions = analytics.table(
  'conversions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    destination: text('destination', { enum: conversionDestinations }).notNull(),
    eventId: text('event_id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    attempts: count('attempts'),
    nextAttemptAt: at('next_attempt_at').notNull().defaultNow(),
    sentAt: at('sent_at'),
    failedAt: at('failed_at'),
    lastError: text('last_error'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [unique().on(table.destination, table.eventId)],
);

export const conversionUsers = analytics.table('conversion_users', {
  userId: text('user_id').primaryKey(),
  emailSha256: text('email_sha256').notNull(),
});
