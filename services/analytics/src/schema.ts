import { bigint, date, integer, jsonb, pgSchema, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';

export const analytics = pgSchema('analytics');

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });
const day = () => date('day', { mode: 'string' }).notNull();
const count = (name: string) => integer(name).notNull().default(0);

export const summaryDimensions = ['day', 'clickId', 'referrer', 'campaign'] as const;
export type SummaryDimension = (typeof summaryDimensions)[number];

export const playbackDimensions = ['episode', 'rung'] as const;
export type PlaybackDimension = (typeof playbackDimensions)[number];

export const daily = analytics.table(
  'daily',
  {
    day: day(),
    dimension: text('dimension', { enum: summaryDimensions }).notNull(),
    key: text('key').notNull(),
    landings: count('landings'),
    videoViews: count('video_views'),
    plays: count('plays'),
    unlocks: count('unlocks'),
    orders: count('orders'),
    revenueAmount: bigint('revenue_amount', { mode: 'number' }).notNull().default(0),
    vipStarts: count('vip_starts'),
    vipCancels: count('vip_cancels'),
  },
  (table) => [primaryKey({ columns: [table.dimension, table.day, table.key] })],
);

export const userAttribution = analytics.table('user_attribution', {
  userId: text('user_id').primaryKey(),
  campaign: text('campaign'),
  referrerToken: text('referrer_token'),
  clickId: text('click_id'),
  firstSeenAt: at('first_seen_at').notNull(),
});

export const funnel = analytics.table('funnel', {
  userId: text('user_id').primaryKey(),
  landedAt: at('landed_at'),
  firstVideoViewAt: at('first_video_view_at'),
  firstConvertedAt: at('first_converted_at'),
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
