import { boolean, integer, jsonb, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const payment = pgSchema('payment');

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const planKinds = ['coins', 'vip'] as const;
export type PlanKind = (typeof planKinds)[number];
export const orderStatuses = ['created', 'succeeded', 'failed', 'canceled', 'refunded'] as const;
export type OrderStatus = (typeof orderStatuses)[number];
export const subscriptionStatuses = ['active', 'past_due', 'canceled', 'expired'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export const plans = payment.table('plans', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: planKinds }).notNull(),
  title: text('title').notNull(),
  priceAmount: integer('price_amount').notNull(),
  currency: text('currency').notNull(),
  coins: integer('coins'),
  bonusCoins: integer('bonus_coins'),
  periodDays: integer('period_days'),
  firstPurchaseOnly: boolean('first_purchase_only').notNull(),
  active: boolean('active').notNull(),
  position: integer('position').notNull(),
  updatedAt: at('updated_at').notNull(),
});

export const subscriptions = payment.table('subscriptions', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  planId: text('plan_id').notNull(),
  status: text('status', { enum: subscriptionStatuses }).notNull(),
  priceAmount: integer('price_amount').notNull(),
  currency: text('currency').notNull(),
  periodDays: integer('period_days').notNull(),
  renewsAt: at('renews_at').notNull(),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull(),
  customerId: text('customer_id'),
  paymentMethodId: text('payment_method_id'),
  email: text('email'),
  retryCount: integer('retry_count').notNull(),
  firstFailedAt: at('first_failed_at'),
  nextRetryAt: at('next_retry_at'),
  renewalLeaseUntil: at('renewal_lease_until'),
  referrerToken: text('referrer_token'),
  fbclid: text('fbclid'),
  ttclid: text('ttclid'),
  startedAt: at('started_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  endedAt: at('ended_at'),
});

export const orders = payment.table('orders', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  planId: text('plan_id').notNull(),
  kind: text('kind', { enum: planKinds }).notNull(),
  title: text('title').notNull(),
  priceAmount: integer('price_amount').notNull(),
  currency: text('currency').notNull(),
  coins: integer('coins'),
  bonusCoins: integer('bonus_coins'),
  periodDays: integer('period_days'),
  firstPurchaseOnly: boolean('first_purchase_only').notNull(),
  status: text('status', { enum: orderStatuses }).notNull(),
  paymentId: text('payment_id'),
  failureReason: text('failure_reason'),
  email: text('email'),
  subscriptionId: text('subscription_id'),
  periodStart: at('period_start'),
  referrerToken: text('referrer_token'),
  fbclid: text('fbclid'),
  ttclid: text('ttclid'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  succeededAt: at('succeeded_at'),
  refundedAt: at('refunded_at'),
  refundReason: text('refund_reason'),
  unlockSyncedAt: at('unlock_synced_at'),
});

export const payRequests = payment.table(
  'pay_requests',
  {
    userId: text('user_id').notNull(),
    keyHash: text('key_hash').notNull(),
    fingerprint: text('fingerprint').notNull(),
    orderId: text('order_id').notNull(),
    state: text('state', { enum: ['in_flight', 'done'] }).notNull(),
    result: jsonb('result'),
    claimedAt: at('claimed_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.keyHash] })],
);

export const processedWebhooks = payment.table('processed_webhooks', {
  eventId: text('event_id').primaryKey(),
  type: text('type').notNull(),
  orderId: text('order_id'),
  processedAt: at('processed_at').notNull(),
});

export const guestMerges = payment.table('guest_merges', {
  eventId: text('event_id').primaryKey(),
  guestId: text('guest_id').notNull(),
  memberId: text('member_id').notNull(),
  orders: integer('orders').notNull(),
  subscriptions: integer('subscriptions').notNull(),
  keptSubscriptionId: text('kept_subscription_id'),
  endedSubscriptionId: text('ended_subscription_id'),
  addedSeconds: integer('added_seconds').notNull(),
  mergedAt: at('merged_at').notNull(),
});
