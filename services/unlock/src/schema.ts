import { bigint, boolean, date, integer, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const unlock = pgSchema('unlock');

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const ledgerKinds = ['purchase', 'bonus', 'unlock', 'refund', 'expiry', 'checkin', 'merge_out', 'merge_in', 'revoke', 'restore', 'grant'] as const;
export type LedgerKind = (typeof ledgerKinds)[number];

export const wallets = unlock.table('wallets', {
  userId: text('user_id').primaryKey(),
  paidCoins: integer('paid_coins').notNull().default(0),
  bonusCoins: integer('bonus_coins').notNull().default(0),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export const ledger = unlock.table('ledger', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  userId: text('user_id').notNull(),
  kind: text('kind', { enum: ledgerKinds }).notNull(),
  reference: text('reference').notNull().unique(),
  paidDelta: integer('paid_delta').notNull(),
  bonusDelta: integer('bonus_delta').notNull(),
  paidBalance: integer('paid_balance').notNull(),
  bonusBalance: integer('bonus_balance').notNull(),
  createdAt: at('created_at').notNull(),
});

export const bonusLots = unlock.table('bonus_lots', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  userId: text('user_id').notNull(),
  grantedBy: text('granted_by').notNull().unique(),
  coins: integer('coins').notNull(),
  remaining: integer('remaining').notNull(),
  expiresAt: at('expires_at').notNull(),
});

export const unlocks = unlock.table(
  'unlocks',
  {
    userId: text('user_id').notNull(),
    episodeId: text('episode_id').notNull(),
    videoId: text('video_id').notNull(),
    episodeNumber: integer('episode_number').notNull(),
    priceCoins: integer('price_coins').notNull(),
    unlockedAt: at('unlocked_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.episodeId] })],
);

export const vip = unlock.table('vip', {
  userId: text('user_id').primaryKey(),
  planId: text('plan_id').notNull(),
  activeUntil: at('active_until').notNull(),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export const checkins = unlock.table(
  'checkins',
  {
    userId: text('user_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    streak: integer('streak').notNull(),
    coins: integer('coins').notNull(),
    timeZone: text('time_zone').notNull(),
    checkedInAt: at('checked_in_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.day] })],
);

export const guestMerges = unlock.table('guest_merges', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  reference: text('reference').notNull().unique(),
  guestId: text('guest_id').notNull(),
  memberId: text('member_id').notNull(),
  lastEntryId: bigint('last_entry_id', { mode: 'number' }),
  coins: integer('coins').notNull(),
  bonusCoins: integer('bonus_coins').notNull(),
  unlocks: integer('unlocks').notNull(),
  checkins: integer('checkins').notNull(),
  mergedAt: at('merged_at').notNull(),
});

export const reversals = unlock.table('reversals', {
  reference: text('reference').primaryKey(),
  orderId: text('order_id').notNull(),
  userId: text('user_id').notNull(),
  paidCoins: integer('paid_coins').notNull(),
  bonusCoins: integer('bonus_coins').notNull(),
  unlocksRevoked: integer('unlocks_revoked').notNull(),
  state: text('state', { enum: ['reversed', 'restored'] }).notNull(),
  reversedAt: at('reversed_at').notNull(),
  restoredAt: at('restored_at'),
});

export const revokedUnlocks = unlock.table(
  'revoked_unlocks',
  {
    reversal: text('reversal').notNull(),
    userId: text('user_id').notNull(),
    episodeId: text('episode_id').notNull(),
    videoId: text('video_id').notNull(),
    episodeNumber: integer('episode_number').notNull(),
    priceCoins: integer('price_coins').notNull(),
    unlockedAt: at('unlocked_at').notNull(),
    revokedAt: at('revoked_at').notNull(),
    restoredAt: at('restored_at'),
  },
  (table) => [primaryKey({ columns: [table.reversal, table.episodeId] })],
);

/** Why an operator granted coins, beside the `grant` ledger entry that credited them (0006). */
export const grants = unlock.table('grants', {
  reference: text('reference').primaryKey(),
  userId: text('user_id').notNull(),
  coins: integer('coins').notNull(),
  reason: text('reason').notNull(),
  actor: text('actor').notNull(),
  grantedAt: at('granted_at').notNull(),
});
