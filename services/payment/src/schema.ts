import { boolean, integer, jsonb, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const payment = pgSchema('payment');

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const planKinds = ['coins', 'vip'] as const;
export type PlanKind = (typeof planKinds)[number];
export const orderStatuses = ['created', 'succeeded', 'failed', 'canceled', 'partially_refunded', 'refunded'] as const;
export type OrderStatus = (typeof orderStatuses)[number];
export const mailLanguages = ['en', 'es', 'fy', 'dy', 'pt'] as const;
export type MailLanguage = (typeof mailLanguages)[number];
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
  periodMonths: integer('period_months'),
  firstPurchaseOnly: boolean('first_purchase_only').notNull(),
  active: boolean('active').notNull(),
  position: integer('position').notNull(),
  updatedAt: at('updated_at').notNull(),
  /** Set once: no longer listed or sold, live subscriptions keep it (0006). */
  retiredAt: at('retired_at'),
});

export const subscriptions = payment.table('subscriptions', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  planId: text('plan_id').notNull(),
  status: text('status', { enum: subscriptionStatuses }).notNull(),
  priceAmount: integer('price_amount').notNull(),
  currency: text('currency').notNull(),
  periodDays: integer('period_days').notNull(),
  periodMonths: integer('period_months'),
  billingDay: integer('billing_day'),
  language: text('language', { enum: mailLanguages }).notNull().default('en'),
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
  periodMonths: integer('period_months'),
  firstPurchaseOnly: boolean('first_purchase_only').notNull(),
  language: text('language', { enum: mailLanguages }).notNull().default('en'),
  status: text('status', { enum: orderStatuses }).notNull(),
  paymentId: text('payment_id'),
  /**
   * A renewal's idempotency key at the provider, written before its off-session charge is asked and
   * cleared when it failed: while set on a `created` order, money may have been taken under it (0009).
   */
  paymentKey: text('payment_key'),
  failureReason: text('failure_reason'),
  email: text('email'),
  subscriptionId: text('subscription_id'),
  periodStart: at('period_start'),
  referrerToken: text('referrer_token'),
  fbclid: text('fbclid'),
  ttclid: text('ttclid'),
  /** The landing URL's utm_* fields the order was placed with (0008). */
  utmSource: text('utm_source'),
  utmMedium: text('utm_medium'),
  utmCampaign: text('utm_campaign'),
  utmTerm: text('utm_term'),
  utmContent: text('utm_content'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  succeededAt: at('succeeded_at'),
  refundedAt: at('refunded_at'),
  refundReason: text('refund_reason'),
  refundedAmount: integer('refunded_amount').notNull().default(0),
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

export const mailsSent = payment.table('mails_sent', {
  key: text('key').primaryKey(),
  kind: text('kind', { enum: ['receipt', 'renewal_failed', 'renewal_reminder', 'refund'] }).notNull(),
  userId: text('user_id').notNull(),
  sentAt: at('sent_at').notNull(),
});

export const refundSources = ['operator', 'provider', 'dispute'] as const;
export type RefundSource = (typeof refundSources)[number];

export const refunds = payment.table('refunds', {
  id: text('id').primaryKey(),
  orderId: text('order_id').notNull(),
  amount: integer('amount').notNull(),
  currency: text('currency').notNull(),
  source: text('source', { enum: refundSources }).notNull(),
  reason: text('reason'),
  status: text('status', { enum: ['pending', 'succeeded'] }).notNull(),
  providerRefundId: text('provider_refund_id'),
  paidCoins: integer('paid_coins').notNull(),
  bonusCoins: integer('bonus_coins').notNull(),
  coinsTaken: integer('coins_taken'),
  unlocksRevoked: integer('unlocks_revoked'),
  createdAt: at('created_at').notNull(),
  succeededAt: at('succeeded_at'),
  unlockSyncedAt: at('unlock_synced_at'),
});

export const disputeStatuses = ['open', 'won', 'lost'] as const;
export type DisputeStatus = (typeof disputeStatuses)[number];

export const disputes = payment.table('disputes', {
  id: text('id').primaryKey(),
  orderId: text('order_id').notNull(),
  amount: integer('amount').notNull(),
  currency: text('currency').notNull(),
  reason: text('reason').notNull(),
  status: text('status', { enum: disputeStatuses }).notNull(),
  paidCoins: integer('paid_coins').notNull(),
  bonusCoins: integer('bonus_coins').notNull(),
  coinsTaken: integer('coins_taken'),
  unlocksRevoked: integer('unlocks_revoked'),
  openedAt: at('opened_at').notNull(),
  closedAt: at('closed_at'),
  unlockSyncedAt: at('unlock_synced_at'),
});
