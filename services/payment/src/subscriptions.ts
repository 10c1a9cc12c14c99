import { randomUUID } from 'node:crypto';
import { appendEvent, Conflict, NotFound } from '@cliffhanger/platform';
import type { ChargeResult } from './providers/index.ts';
import { paymentRepository as repo, type OrderRow, type SubscriptionRow } from './repository.ts';
import { nextRetryAt } from './billing.ts';
import type { Core } from './core.ts';
import type { Settlement } from './settlement.ts';
import { contextOf, subscriptionView, type Subscription } from './views.ts';

/** How long one process may hold a renewal before another may take it over (it died mid-charge). */
export const RENEWAL_LEASE_MS = 5 * 60_000;

export type RenewalOutcome = 'renewed' | 'past_due' | 'expired' | 'pending' | 'skipped';

/**
 * VIP subscriptions after they start: cancel at period end, resume, and the renewals. A renewal
 * charges the saved card under a key made of the subscription, its period and the attempt, written on
 * the period's order before the provider is asked: two processes renewing the same subscription (the
 * lease keeps them apart; a dead holder's lease lapses) still charge it once, and a process that died
 * after the charge is followed by one asking again with the recorded key, even after `renews_at`
 * moved. Each period is one order; its retries charge that order again.
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
      // Under the subscription lock a guest merge holds while it moves subscriptions and orders: the
      // order is its subscription's owner's as the merge left it, or the merge moves it with the rest;
      // a guest's order for the member's period would settle as another VIP of nobody's.
      await repo.lockSubscriptionsOf(tx, sub.userId);
      const row = await repo.insertRenewalOrder(tx, {
        id: randomUUID(),
        userId: (await repo.subscriptionOwner(tx, sub.id)) ?? sub.userId,
        planId: sub.planId,
        kind: 'vip',
        title: plan?.title ?? sub.planId,
        priceAmount: sub.priceAmount,
        currency: sub.currency,
        periodDays: sub.periodDays,
        periodMonths: sub.periodMonths,
        firstPurchaseOnly: false,
        language: sub.language,
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

  /**
   * A declined renewal: past due with the next try planned (VIP kept through the grace period, the
   * buyer mailed once a period), or expired after a hard decline or the last try.
   */
  async function recordRenewalFailure(sub: SubscriptionRow, order: OrderRow, charge: Extract<ChargeResult, { status: 'failed' }>, at: Date): Promise<RenewalOutcome> {
    const attempt = sub.retryCount;
    const firstFailedAt = sub.firstFailedAt ?? at;
    const retryAt = charge.hardDecline ? null : nextRetryAt(firstFailedAt, attempt + 1);
    const changes = retryAt
      ? { status: 'past_due' as const, retryCount: attempt + 1, firstFailedAt, nextRetryAt: retryAt, renewalLeaseUntil: null, updatedAt: at }
      : { status: 'expired' as const, endedAt: at, retryCount: attempt + 1, nextRetryAt: null, renewalLeaseUntil: null, updatedAt: at };
    const moved = await database.transaction(async (tx) => {
      // Guarded by the attempt: a second process that charged the same attempt records nothing.
      const row = await repo.changeLiveSubscription(tx, sub.id, { renewsAt: sub.renewsAt, retryCount: attempt }, changes);
      if (!row) return null;
      // The key is cleared with the outcome known: the next attempt is a new charge under its own key.
      const failed = await repo.moveOrder(tx, order.id, ['created', 'failed'], {
        status: 'failed',
        paymentId: charge.paymentId,
        paymentKey: null,
        failureReason: charge.reason,
        updatedAt: at,
      });
      if (failed) await settlement.paymentFailedEvent(tx, failed, charge.reason);
      if (!retryAt) await settlement.subscriptionEvent(tx, 'subscription.expired', row);
      else if (attempt === 0) await settlement.subscriptionEvent(tx, 'subscription.past_due', row);
      return row;
    });
    if (!moved) return 'skipped';
    bus.nudge();
    // Past due keeps VIP through the grace period; expired ends it.
    if (!retryAt || attempt === 0) await settlement.syncVipQuietly(sub.userId);
    if (retryAt) await settlement.mails.renewalFailed(moved, order).catch((error: unknown) => logger.error({ err: error, subscriptionId: sub.id }, 'renewal notice not sent'));
    return retryAt ? 'past_due' : 'expired';
  }

  /**
   * An attempt at the period's order that is still open: the buyer's own card in 3-D Secure (a card
   * replaced by them), or an off-session charge processing. Charging the saved card meanwhile could
   * take the money twice, so the renewal waits for it; one that passed settles now.
   */
  async function openAttempt(order: OrderRow): Promise<'settled' | 'waiting' | null> {
    if (order.status !== 'created' || !order.paymentId) return null;
    const earlier = await provider.retrieve(order.paymentId).catch(() => null);
    if (earlier?.status === 'succeeded') {
      await settlement.settleOrder(order.id, earlier.paymentId, earlier.savedMethod);
      return 'settled';
    }
    return earlier?.status === 'requires_action' || earlier?.status === 'processing' ? 'waiting' : null;
  }

  /**
   * The order a renewal charges: one whose charge was asked and never answered (the process died
   * after the provider maybe took the money, and `renews_at` may have moved since: asked again with
   * its recorded key, the provider answers that payment instead of taking the money twice), else the
   * period's.
   */
  async function orderToCharge(sub: SubscriptionRow, at: Date): Promise<OrderRow> {
    return (await repo.openRenewalCharge(db, sub.id)) ?? (await renewalOrderOf(sub, at));
  }

  /** One due subscription: ends it, or charges its saved card for the next period. */
  async function renewOne(sub: SubscriptionRow, at: Date): Promise<RenewalOutcome> {
    // Canceled at period end, or nothing to charge (bought by PayPal): access ends with the period.
    if (sub.cancelAtPeriodEnd || !sub.customerId || !sub.paymentMethodId) {
      return (await endSubscription(sub, 'expired', at)) ? 'expired' : 'skipped';
    }
    if (!(await repo.leaseRenewal(db, sub, at, new Date(at.getTime() + RENEWAL_LEASE_MS)))) return 'skipped';
    try {
      const order = await orderToCharge(sub, at);
      const open = await openAttempt(order);
      if (open) {
        await repo.releaseRenewal(db, sub.id);
        return open === 'settled' ? 'renewed' : 'pending';
      }
      const attempt = sub.retryCount;
      // The key is on the order before the provider hears of it: a charge asked before a crash is asked
      // again with its own key, never with one made of a `renews_at` that moved since.
      const idempotencyKey =
        order.status === 'created' && order.paymentKey ? order.paymentKey : `renew:${sub.id}:${sub.renewsAt.toISOString()}${attempt ? `:retry-${attempt}` : ''}`;
      if (idempotencyKey !== order.paymentKey || order.status !== 'created') {
        const keyed = await repo.moveOrder(db, order.id, ['created', 'failed'], { status: 'created', paymentKey: idempotencyKey, failureReason: null, updatedAt: at });
        if (!keyed) {
          // Settled meanwhile (a webhook, the buyer's new card): nothing to charge.
          await repo.releaseRenewal(db, sub.id);
          return 'skipped';
        }
      }
      const charge = await provider.chargeSaved({
        orderId: order.id,
        amount: { amount: order.priceAmount, currency: order.currency },
        savedMethod: { customerId: sub.customerId, paymentMethodId: sub.paymentMethodId },
        idempotencyKey,
      });
      if (charge.status === 'succeeded') {
        await settlement.settleOrder(order.id, charge.paymentId, null);
        // A renewal of the period clears the lease as it settles; an order of an earlier renews_at
        // settles as a purchase, which leaves it.
        await repo.releaseRenewal(db, sub.id);
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

  /**
   * Renewal charges asked and never answered (the process died after asking): asked again with the
   * recorded key once the dead process's lease lapsed, so money the provider took settles its order
   * now (a period for the user, as a late renewal does) and a decline fails it, even when the
   * subscription is not due for days (past due, or renews_at moved by a guest merge) or ended meanwhile
   * (the VIP a guest merge ended). A live subscription's renewal lease is held meanwhile.
   */
  async function settleOpenCharges(at: Date): Promise<void> {
    for (const { order, subscription: sub } of await repo.openRenewalCharges(db, new Date(at.getTime() - RENEWAL_LEASE_MS), 50)) {
      const live = sub.status === 'active' || sub.status === 'past_due';
      if (live && !(await repo.leaseRenewal(db, sub, at, new Date(at.getTime() + RENEWAL_LEASE_MS)))) continue;
      try {
        if (await openAttempt(order)) continue;
        if (!sub.customerId || !sub.paymentMethodId) continue;
        const charge = await provider.chargeSaved({
          orderId: order.id,
          amount: { amount: order.priceAmount, currency: order.currency },
          savedMethod: { customerId: sub.customerId, paymentMethodId: sub.paymentMethodId },
          idempotencyKey: order.paymentKey!,
        });
        if (charge.status === 'succeeded') await settlement.settleOrder(order.id, charge.paymentId, null);
        else if (charge.status === 'failed') {
          // The attempt's failure: a past-due subscription's next try asks under the same key and records it.
          await database.transaction(async (tx) => {
            const failed = await repo.moveOrder(tx, order.id, ['created'], { status: 'failed', paymentId: charge.paymentId, paymentKey: null, failureReason: charge.reason, updatedAt: at });
            if (failed) await settlement.paymentFailedEvent(tx, failed, charge.reason);
          });
        } else await repo.setOrderFields(db, order.id, { paymentId: charge.paymentId, updatedAt: at });
      } catch (error) {
        logger.warn({ err: error, orderId: order.id }, 'unanswered renewal charge not settled; tried again on the next run');
      } finally {
        if (live) await repo.releaseRenewal(db, sub.id);
      }
    }
  }

  return {
    endSubscription,
    renewalOrderOf,
    settleOpenCharges,

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
     * The sandbox's test hook (`POST /api/admin/subscriptions/renew`): one user's live subscription is
     * renewed, or retried, now as the minute's run would when its date comes, so a browser test can see
     * a renewal without waiting a period. The run's time is that date, never earlier than now.
     */
    async renewEarly(userId: string): Promise<{ outcome: RenewalOutcome; subscription: Subscription }> {
      const live = await repo.liveSubscriptionOf(db, userId);
      if (!live) throw new NotFound('This user has no subscription');
      const due = live.status === 'past_due' && live.nextRetryAt ? live.nextRetryAt : live.renewsAt;
      const outcome = await renewOne(live, new Date(Math.max(due.getTime(), now().getTime())));
      return { outcome, subscription: subscriptionView((await repo.latestSubscriptionOf(db, userId))!) };
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

export type Subscriptions = ReturnType<typeof createSubscriptions>;
