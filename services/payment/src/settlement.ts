import { randomUUID } from 'node:crypto';
import { Counter } from 'prom-client';
import { appendEvent, type EventType, type Executor, type Metrics } from '@cliffhanger/platform';
import type { SavedMethod } from './providers/index.ts';
import { accessUntil, periodEnd } from './billing.ts';
import type { Core, Settled } from './core.ts';
import { createPaymentMails } from './mails.ts';
import { refundRepository as refundRepo } from './refund-repository.ts';
import { paymentRepository as repo, type OrderRow, type PlanRow, type SubscriptionRow } from './repository.ts';
import type { OrderStatus } from './schema.ts';
import { contextOf } from './views.ts';

export type SubscriptionEvent = Extract<EventType, `subscription.${string}`>;

/** Orders a payment may still settle: money taken for a failed or canceled order still buys it. */
const SETTLEABLE: OrderStatus[] = ['created', 'failed', 'canceled'];

/**
 * What an offer order's money buys without the offer: paid coins at the best rate of the regular
 * packs on sale in its currency, no bonus; one coin a cent (the packs' own rate) when none is on sale.
 */
function coinsAtRegularRate(order: Pick<OrderRow, 'priceAmount' | 'currency'>, plansOnSale: PlanRow[]): number {
  const packs = plansOnSale.filter((plan) => plan.kind === 'coins' && !plan.firstPurchaseOnly && plan.currency === order.currency);
  if (packs.length === 0) return order.priceAmount;
  return Math.max(...packs.map((pack) => Math.floor((order.priceAmount * pack.coins!) / pack.priceAmount)));
}

/**
 * Settling a paid order exactly once, and telling the unlock service. The order's flip to
 * `succeeded` is a conditional update, so of a pay call, a webhook and a sweep settling the same
 * order at once only the first changes anything; its events commit with it (the outbox). The unlock
 * service hears after the commit, by calls that are idempotent by order id, and `unlock_synced_at`
 * stays null until it did: a crash in between is caught up by `syncPendingOrders`.
 */
export function createSettlement(core: Core) {
  const { database, bus, logger, unlock, now } = core;
  const counted = core.metrics && paymentMetrics(core.metrics);
  const mails = createPaymentMails(core);

  async function subscriptionEvent(tx: Executor, type: SubscriptionEvent, sub: SubscriptionRow): Promise<void> {
    const data = { subscriptionId: sub.id, planId: sub.planId, renewsAt: sub.renewsAt.toISOString(), cancelAtPeriodEnd: sub.cancelAtPeriodEnd };
    await appendEvent(tx, contextOf(sub, `subscription:${sub.id}`), type, data, sub.userId);
  }

  async function paymentFailedEvent(tx: Executor, order: OrderRow, reason: string): Promise<void> {
    await appendEvent(tx, contextOf(order, `order:${order.id}`), 'payment.failed', { orderId: order.id, reason }, order.userId);
    counted?.payments.inc({ outcome: 'failed', kind: order.kind });
  }

  /**
   * Starts, extends or renews the subscription a paid VIP order pays for. A period starts when the
   * one before ends, or at the payment when that is later: a renewal that passed on a retry (past due)
   * starts at the payment and on its day of the month, never in the past.
   */
  async function applyVipOrder(tx: Executor, order: OrderRow, savedMethod: SavedMethod | null, at: Date): Promise<SubscriptionRow> {
    await repo.lockSubscriptionsOf(tx, order.userId);
    const term = { periodDays: order.periodDays!, periodMonths: order.periodMonths };
    const method = savedMethod ? { customerId: savedMethod.customerId, paymentMethodId: savedMethod.paymentMethodId } : {};
    const current = await repo.liveSubscriptionOf(tx, order.userId);
    if (order.subscriptionId && order.periodStart && current?.id === order.subscriptionId && current.renewsAt.getTime() === order.periodStart.getTime()) {
      const startsAtPayment = current.status === 'past_due' && order.periodStart < at;
      const from = startsAtPayment ? at : order.periodStart;
      const billingDay = startsAtPayment && term.periodMonths ? at.getUTCDate() : current.billingDay;
      const renewed = await repo.changeLiveSubscription(tx, order.subscriptionId, { renewsAt: order.periodStart }, {
        ...method,
        status: 'active',
        renewsAt: periodEnd(from, term, billingDay),
        billingDay,
        language: order.language,
        retryCount: 0,
        firstFailedAt: null,
        nextRetryAt: null,
        renewalLeaseUntil: null,
        updatedAt: at,
      });
      if (renewed) {
        await subscriptionEvent(tx, 'subscription.renewed', renewed);
        return renewed;
      }
    }
    // The renewal settled after its subscription moved on (ended, or bought again): the money is
    // taken, so it buys a period as a purchase does.
    const terms = { planId: order.planId, priceAmount: order.priceAmount, currency: order.currency, periodDays: term.periodDays, periodMonths: term.periodMonths };
    let sub: SubscriptionRow;
    if (current) {
      // Bought while subscribed: the new period follows what is left of the current one, and renews
      // if a card is kept for it (this payment's or the one before).
      const follows = current.renewsAt > at;
      const from = follows ? current.renewsAt : at;
      // A plan in months keeps the day a monthly one already renews on; any other starts on its first day.
      const billingDay = !term.periodMonths ? null : follows && current.periodMonths && current.billingDay ? current.billingDay : from.getUTCDate();
      const renewable = Boolean(savedMethod || (current.customerId && current.paymentMethodId));
      sub = (await repo.changeLiveSubscription(tx, current.id, {}, {
        ...terms,
        ...method,
        status: 'active',
        renewsAt: periodEnd(from, term, billingDay),
        billingDay,
        language: order.language,
        cancelAtPeriodEnd: !renewable,
        email: order.email ?? current.email,
        retryCount: 0,
        firstFailedAt: null,
        nextRetryAt: null,
        updatedAt: at,
      }))!;
      await subscriptionEvent(tx, 'subscription.renewed', sub);
    } else {
      // Without a saved card (PayPal's redirect) nothing can renew it: it ends with its period.
      sub = await repo.insertSubscription(tx, {
        id: randomUUID(),
        userId: order.userId,
        ...terms,
        status: 'active',
        renewsAt: periodEnd(at, term, at.getUTCDate()),
        billingDay: term.periodMonths ? at.getUTCDate() : null,
        language: order.language,
        cancelAtPeriodEnd: !savedMethod,
        customerId: savedMethod?.customerId ?? null,
        paymentMethodId: savedMethod?.paymentMethodId ?? null,
        email: order.email,
        retryCount: 0,
        referrerToken: order.referrerToken,
        fbclid: order.fbclid,
        ttclid: order.ttclid,
        startedAt: at,
        updatedAt: at,
      });
      await subscriptionEvent(tx, 'subscription.started', sub);
    }
    if (order.subscriptionId !== sub.id) await repo.setOrderFields(tx, order.id, { subscriptionId: sub.id });
    return sub;
  }

  /**
   * Moves the order to succeeded, once; null when it was settled (or refunded) before. The database
   * holds the first-purchase offer to one paid order per user (the unique index
   * `orders_one_first_purchase`): two offers paid through 3-D Secure or PayPal both pass every check
   * before the money moves, and the second to settle breaks the index. Tried in a savepoint, so that
   * one settles at the regular rate instead: its money is taken, and the provider port cannot give it back.
   */
  async function markPaid(tx: Executor, orderId: string, paid: Partial<OrderRow>): Promise<{ order: OrderRow | null; atRegularRate: boolean }> {
    try {
      return { order: await tx.transaction((savepoint) => repo.moveOrder(savepoint, orderId, SETTLEABLE, paid)), atRegularRate: false };
    } catch (error) {
      if (!repo.isOfferPaidBefore(error)) throw error;
    }
    const offer = (await repo.orderById(tx, orderId))!;
    const coins = coinsAtRegularRate(offer, await repo.plans(tx, { activeOnly: true }));
    const order = await repo.moveOrder(tx, orderId, SETTLEABLE, { ...paid, firstPurchaseOnly: false, coins, bonusCoins: 0 });
    return { order, atRegularRate: true };
  }

  /** Inside the caller's transaction: flips the order to succeeded, once. Null when it was settled (or refunded) before. */
  async function settleInTx(tx: Executor, orderId: string, paymentId: string, savedMethod: SavedMethod | null, at: Date): Promise<Settled | null> {
    const { order, atRegularRate } = await markPaid(tx, orderId, {
      status: 'succeeded',
      paymentId,
      failureReason: null,
      succeededAt: at,
      updatedAt: at,
      unlockSyncedAt: null,
    });
    if (!order) return null;
    const amount = { amount: order.priceAmount, currency: order.currency };
    await appendEvent(tx, contextOf(order, `order:${order.id}`), 'payment.succeeded', { orderId: order.id, paymentId, amount }, order.userId);
    const subscription = order.kind === 'vip' ? await applyVipOrder(tx, order, savedMethod, at) : null;
    return { order, subscription, atRegularRate };
  }

  /** VIP in the unlock service as the user's live subscription has it now; none ends it. */
  async function syncVip(userId: string): Promise<void> {
    const subscription = await repo.liveSubscriptionOf(database.db, userId);
    // An open dispute over a payment of it suspends access until it closes (refunds.ts).
    const live = subscription && !(await refundRepo.subscriptionDisputed(database.db, subscription.id)) ? subscription : null;
    await unlock.applyVip(userId, live ? { planId: live.planId, activeUntil: accessUntil(live, core.graceDays), cancelAtPeriodEnd: live.cancelAtPeriodEnd } : null);
  }

  /**
   * Tells the unlock service what a paid or refunded order means: coins credited (each refund then
   * takes its share back, refunds.ts), VIP applied or ended. Idempotent; marked done only if the order did not change meanwhile (a
   * refund landing during a credit is then applied too).
   */
  async function syncOrder(orderId: string): Promise<void> {
    for (let round = 0; round < 3; round++) {
      const order = await repo.orderById(database.db, orderId);
      if (!order || order.unlockSyncedAt || !['succeeded', 'partially_refunded', 'refunded'].includes(order.status)) return;
      const context = contextOf(order, `order:${order.id}`);
      if (order.kind === 'vip') await syncVip(order.userId);
      else await unlock.creditOrder(context, { orderId: order.id, userId: order.userId, coins: order.coins ?? 0, bonusCoins: order.bonusCoins ?? 0 });
      if (await repo.markSynced(database.db, order.id, order.status, order.userId, now())) return;
    }
  }

  /** After a settlement's commit: the unlock service, then the receipt. Neither undoes the payment when it fails. */
  async function afterSettled(settled: Settled): Promise<void> {
    bus.nudge();
    const orderId = settled.order.id;
    counted?.payments.inc({ outcome: 'succeeded', kind: settled.order.kind });
    counted?.amount.inc({ currency: settled.order.currency }, settled.order.priceAmount);
    await syncOrder(orderId).catch((error: unknown) => logger.error({ err: error, orderId }, 'unlock service not told of a paid order; the sweep retries'));
    await mails.receipt(settled).catch((error: unknown) => logger.error({ err: error, orderId }, 'receipt not sent'));
  }

  return {
    mails,
    subscriptionEvent,
    paymentFailedEvent,
    settleInTx,
    afterSettled,
    syncOrder,
    syncVip,
    async syncVipQuietly(userId: string): Promise<void> {
      await syncVip(userId).catch((error: unknown) => logger.error({ err: error, userId }, 'unlock service not told of a VIP change'));
    },

    /** One function for every way success arrives: settles in its own transaction, then tells the unlock service. */
    async settleOrder(orderId: string, paymentId: string, savedMethod: SavedMethod | null): Promise<boolean> {
      const settled = await database.transaction((tx) => settleInTx(tx, orderId, paymentId, savedMethod, now()));
      if (settled) await afterSettled(settled);
      return Boolean(settled);
    },

    /** Orders whose unlock side is owed (a crash after commit, the unlock service down), a minute on. */
    async syncPendingOrders(at: Date): Promise<number> {
      const ids = await repo.unsyncedOrderIds(database.db, new Date(at.getTime() - 60_000), 100);
      let synced = 0;
      for (const orderId of ids) {
        try {
          await syncOrder(orderId);
          synced += 1;
        } catch (error) {
          logger.warn({ err: error, orderId }, 'unlock sync failed; retrying on the next sweep');
        }
      }
      return synced;
    },
  };
}

export type Settlement = ReturnType<typeof createSettlement>;

/** Payments as an operator watches them (a failure ratio worth an alert), one set per process. */
function paymentMetrics({ registry }: Metrics) {
  const existing = (name: string) => registry.getSingleMetric(name) as Counter<string> | undefined;
  return {
    payments:
      existing('payments_total') ??
      new Counter({ name: 'payments_total', help: 'Payments settled or failed, by outcome and order kind (coins, vip)', labelNames: ['outcome', 'kind'], registers: [registry] }),
    amount:
      existing('payments_amount_minor_total') ??
      new Counter({ name: 'payments_amount_minor_total', help: 'Money taken by settled payments, in minor units, by currency', labelNames: ['currency'], registers: [registry] }),
  };
}
