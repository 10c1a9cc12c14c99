import { randomUUID } from 'node:crypto';
import { appendEvent, Conflict, NotFound, type ChargeResult } from '@cliffhanger/platform';
import { paymentRepository as repo, type OrderRow, type SubscriptionRow } from './repository.ts';
import { addDays, type Core, type Settlement } from './settlement.ts';
import { contextOf, subscriptionView, type Subscription } from './views.ts';

/** Days after the first failed renewal on which it is tried again (Stripe's Smart Retries, simplified). */
export const RETRY_DAYS = [1, 3, 5, 7];
/** How long one process may hold a renewal before another may take it over (it died mid-charge). */
const RENEWAL_LEASE_MS = 5 * 60_000;

export type RenewalOutcome = 'renewed' | 'past_due' | 'expired' | 'pending' | 'skipped';

/**
 * VIP subscriptions after they start: cancel at period end, resume, and the renewals. A renewal
 * charges the saved card under a key made of the subscription, its period and the attempt, so two
 * processes renewing the same subscription (the lease keeps them apart; a dead holder's lease
 * lapses) still charge it once. Each period is one order; its retries charge that order again.
 */
export function createSubscriptions(core: Core, settlement: Settlement) {
  const { database, bus, logger, provider, now } = core;
  const db = database.db;

  /** Ends a live subscription now (`expired` when it ran out, `canceled` by an operator) and VIP with it. */
  async function endSubscription(sub: SubscriptionRow, status: 'expired' | 'canceled', at: Date): Promise<boolean> {
    const ended = await database.transaction(async (tx) => {
      const row = await repo.changeLiveSubscription(tx, sub.id, {}, { status, endedAt: at, nextRetryAt: null, renewalLeaseUntil: null, updatedAt: at });
      if (row) await settlement.subscriptionEvent(tx, status === 'expired' ? 'subscription.expired' : 'subscription.canceled', row);
      return row;
    });
    if (!ended) return false;
    bus.nudge();
    await settlement.syncVipQuietly(sub.userId);
    return true;
  }

  /** The order of the period `sub` is renewing, made once however many processes ask. */
  async function renewalOrderOf(sub: SubscriptionRow, at: Date): Promise<OrderRow> {
    const existing = await repo.renewalOrder(db, sub.id, sub.renewsAt);
    if (existing) return existing;
    const plan = await repo.planById(db, sub.planId);
    const inserted = await database.transaction(async (tx) => {
      const row = await repo.insertRenewalOrder(tx, {
        id: randomUUID(),
        userId: sub.userId,
        planId: sub.planId,
        kind: 'vip',
        title: plan?.title ?? sub.planId,
        priceAmount: sub.priceAmount,
        currency: sub.currency,
        periodDays: sub.periodDays,
        firstPurchaseOnly: false,
        status: 'created',
        email: sub.email,
        subscriptionId: sub.id,
        periodStart: sub.renewsAt,
        referrerToken: sub.referrerToken,
        fbclid: sub.fbclid,
        ttclid: sub.ttclid,
        createdAt: at,
        updatedAt: at,
      });
      if (row) {
        const price = { amount: row.priceAmount, currency: row.currency };
        await appendEvent(tx, contextOf(row, `subscription:${sub.id}`), 'order.created', { orderId: row.id, planId: row.planId, price }, row.userId);
      }
      return row;
    });
    return inserted ?? (await repo.renewalOrder(db, sub.id, sub.renewsAt))!;
  }

  /** A declined renewal: past due with the next retry planned, or expired after a hard decline or the last retry. */
  async function recordRenewalFailure(sub: SubscriptionRow, order: OrderRow, charge: Extract<ChargeResult, { status: 'failed' }>, at: Date): Promise<RenewalOutcome> {
    const attempt = sub.retryCount;
    const expire = charge.hardDecline || attempt >= RETRY_DAYS.length;
    const firstFailedAt = sub.firstFailedAt ?? at;
    const changes = expire
      ? { status: 'expired' as const, endedAt: at, retryCount: attempt + 1, nextRetryAt: null, renewalLeaseUntil: null, updatedAt: at }
      : { status: 'past_due' as const, retryCount: attempt + 1, firstFailedAt, nextRetryAt: addDays(firstFailedAt, RETRY_DAYS[attempt]!), renewalLeaseUntil: null, updatedAt: at };
    const moved = await database.transaction(async (tx) => {
      // Guarded by the attempt: a second process that charged the same attempt records nothing.
      const row = await repo.changeLiveSubscription(tx, sub.id, { renewsAt: sub.renewsAt, retryCount: attempt }, changes);
      if (!row) return null;
      const failed = await repo.moveOrder(tx, order.id, ['created', 'failed'], { status: 'failed', paymentId: charge.paymentId, failureReason: charge.reason, updatedAt: at });
      if (failed) await settlement.paymentFailedEvent(tx, failed, charge.reason);
      if (expire) await settlement.subscriptionEvent(tx, 'subscription.expired', row);
      else if (attempt === 0) await settlement.subscriptionEvent(tx, 'subscription.past_due', row);
      return row;
    });
    if (!moved) return 'skipped';
    bus.nudge();
    if (expire) await settlement.syncVipQuietly(sub.userId);
    return expire ? 'expired' : 'past_due';
  }

  /** One due subscription: ends it, or charges its saved card for the next period. */
  async function renewOne(sub: SubscriptionRow, at: Date): Promise<RenewalOutcome> {
    // Canceled at period end, or nothing to charge (bought by PayPal): access ends with the period.
    if (sub.cancelAtPeriodEnd || !sub.customerId || !sub.paymentMethodId) {
      return (await endSubscription(sub, 'expired', at)) ? 'expired' : 'skipped';
    }
    if (!(await repo.leaseRenewal(db, sub, at, new Date(at.getTime() + RENEWAL_LEASE_MS)))) return 'skipped';
    try {
      const order = await renewalOrderOf(sub, at);
      const attempt = sub.retryCount;
      const charge = await provider.chargeSaved({
        orderId: order.id,
        amount: { amount: order.priceAmount, currency: order.currency },
        savedMethod: { customerId: sub.customerId, paymentMethodId: sub.paymentMethodId },
        idempotencyKey: `renew:${sub.id}:${sub.renewsAt.toISOString()}${attempt ? `:retry-${attempt}` : ''}`,
      });
      if (charge.status === 'succeeded') {
        await settlement.settleOrder(order.id, charge.paymentId, null);
        return 'renewed';
      }
      if (charge.status === 'failed') return await recordRenewalFailure(sub, order, charge, at);
      // Off-session charges do not ask the buyer; a `processing` one settles by webhook.
      await repo.setOrderFields(db, order.id, { paymentId: charge.paymentId, updatedAt: at });
      await repo.releaseRenewal(db, sub.id);
      return 'pending';
    } catch (error) {
      await repo.releaseRenewal(db, sub.id);
      throw error;
    }
  }

  return {
    endSubscription,

    async cancel(userId: string): Promise<Subscription> {
      const at = now();
      const { sub, changed } = await database.transaction(async (tx) => {
        await repo.lockSubscriptionsOf(tx, userId);
        const live = await repo.liveSubscriptionOf(tx, userId);
        if (!live) throw new NotFound('You have no subscription');
        if (live.cancelAtPeriodEnd) return { sub: live, changed: false };
        const row = (await repo.changeLiveSubscription(tx, live.id, {}, { cancelAtPeriodEnd: true, updatedAt: at }))!;
        await settlement.subscriptionEvent(tx, 'subscription.canceled', row);
        return { sub: row, changed: true };
      });
      if (changed) {
        bus.nudge();
        await settlement.syncVipQuietly(userId);
      }
      return subscriptionView(sub);
    },

    async resume(userId: string): Promise<Subscription> {
      const at = now();
      const sub = await database.transaction(async (tx) => {
        await repo.lockSubscriptionsOf(tx, userId);
        const live = await repo.liveSubscriptionOf(tx, userId);
        if (!live) throw new NotFound('You have no subscription');
        if (!live.cancelAtPeriodEnd) throw new Conflict('Your subscription is not canceled');
        if (live.renewsAt <= at) throw new Conflict('Your subscription has ended: please subscribe again');
        // Bought through PayPal's redirect: no card is kept, and the database refuses a renewal without one.
        if (!live.customerId || !live.paymentMethodId) {
          throw new Conflict('This VIP was paid without a saved card, so it cannot renew by itself: buy it again by card before it ends');
        }
        return (await repo.changeLiveSubscription(tx, live.id, {}, { cancelAtPeriodEnd: false, updatedAt: at }))!;
      });
      await settlement.syncVipQuietly(userId);
      return subscriptionView(sub);
    },

    /**
     * Renews, retries or ends every subscription due at `at`, each at most once per call (a clock
     * far ahead catches up one period per run). Answers how many ended each way.
     */
    async renewDueSubscriptions(at: Date = now()): Promise<Record<RenewalOutcome, number>> {
      const outcomes: Record<RenewalOutcome, number> = { renewed: 0, past_due: 0, expired: 0, pending: 0, skipped: 0 };
      const seen: string[] = [];
      for (;;) {
        const due = await repo.dueSubscriptions(db, at, 50, seen);
        if (due.length === 0) return outcomes;
        for (const sub of due) {
          seen.push(sub.id);
          try {
            outcomes[await renewOne(sub, at)] += 1;
          } catch (error) {
            logger.error({ err: error, subscriptionId: sub.id }, 'renewal failed; retrying on the next run');
          }
        }
      }
    },
  };
}
