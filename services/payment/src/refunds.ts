import { randomUUID } from 'node:crypto';
import { appendEvent, auditAdminCall, Conflict, Invalid, NotFound, type AdminCall, type Executor } from '@cliffhanger/platform';
import type { ProviderEvent } from './providers/index.ts';
import { refundRepository as refundRepo, type RefundRow } from './refund-repository.ts';
import { paymentRepository as repo, type OrderRow } from './repository.ts';
import type { RefundSource } from './schema.ts';
import type { Core } from './core.ts';
import type { Settlement } from './settlement.ts';
import { contextOf, orderView, type Order } from './views.ts';

/** Operator refunds whose provider call never came back are asked again (same key) this long after. */
const RETRY_PENDING_AFTER_MS = 2 * 60_000;

/** What a refund reversed, as the admin call answers it. */
export interface Reversed {
  coinsTaken: number;
  unlocksRevoked: number;
  vipEnded: boolean;
}

export type RefundAnswer = Order & { refunded: { amount: number; currency: string }; reversed: Reversed };

type Locked = OrderRow & { accounted: number };
type DisputeEvent = Extract<ProviderEvent, { type: 'payment.disputed' | 'payment.dispute_closed' }>;

/**
 * The coins a refund of `amount` takes back: its share of the order's, counted on the total refunded
 * (rounded up), so the refunds of one order add up to all its coins and never more.
 */
function shareOf(order: OrderRow, before: number, amount: number): { paidCoins: number; bonusCoins: number } {
  const upTo = (coins: number | null, money: number) => Math.ceil(((coins ?? 0) * Math.min(money, order.priceAmount)) / order.priceAmount);
  return {
    paidCoins: upTo(order.coins, before + amount) - upTo(order.coins, before),
    bonusCoins: upTo(order.bonusCoins, before + amount) - upTo(order.bonusCoins, before),
  };
}

const unlockReference = (refund: Pick<RefundRow, 'id' | 'source'>) => (refund.source === 'dispute' ? `dispute:${refund.id}` : `refund:${refund.id}`);

/**
 * Money going back (docs/api.md "Refunds and disputes"): an operator's refund through the provider,
 * refunds made at the provider (`charge.refunded`), and disputes. Each refund is a row whose share of
 * the order's coins the unlock service takes back once (reference `refund:<id>`); a dispute suspends
 * the same way (`dispute:<id>`) until it closes. The order's row lock orders them: an operator's
 * refund is written pending before the provider is asked, so the provider's webhook for it, landing
 * at any moment, finds it counted and adds nothing.
 */
export function createRefunds(core: Core, settlement: Settlement) {
  const { database, bus, logger, provider, unlock, now } = core;
  const db = database.db;

  /** A refund the provider made: the order's refunded total and status, its VIP ended when all is back, and `order.refunded`. */
  async function applyRefund(tx: Executor, order: OrderRow, refund: RefundRow, at: Date): Promise<{ order: OrderRow; vipEnded: boolean }> {
    const total = order.refundedAmount + refund.amount;
    const full = total >= order.priceAmount;
    const changed = (await repo.moveOrder(tx, order.id, ['succeeded', 'partially_refunded'], {
      status: full ? 'refunded' : 'partially_refunded',
      refundedAmount: total,
      refundedAt: at,
      refundReason: refund.reason ?? order.refundReason,
      updatedAt: at,
      ...(order.kind === 'vip' && { unlockSyncedAt: null }),
    }))!;
    let vipEnded = false;
    if (full && changed.kind === 'vip' && changed.subscriptionId) {
      await repo.lockSubscriptionsOf(tx, changed.userId);
      const ended = await repo.changeLiveSubscription(tx, changed.subscriptionId, {}, { status: 'canceled', endedAt: at, nextRetryAt: null, updatedAt: at });
      if (ended) await settlement.subscriptionEvent(tx, 'subscription.canceled', ended);
      vipEnded = Boolean(ended);
    }
    const money = (amount: number) => ({ amount, currency: order.currency });
    await appendEvent(
      tx,
      contextOf(changed, `refund:${refund.id}`),
      'order.refunded',
      {
        orderId: order.id,
        refundId: refund.id,
        amount: money(refund.amount),
        refundedTotal: money(total),
        source: refund.source,
        ...(refund.providerRefundId && { providerRefundId: refund.providerRefundId }),
        ...(refund.reason && { reason: refund.reason }),
        full,
      },
      order.userId,
    );
    return { order: changed, vipEnded };
  }

  /** A refund row for `amount` of a locked order, with its share of the coins. */
  function newRefund(order: Locked, amount: number, source: RefundSource, reason: string | null, at: Date, id: string = randomUUID()) {
    return { id, orderId: order.id, amount, currency: order.currency, source, reason, createdAt: at, ...shareOf(order, order.accounted, amount) };
  }

  /**
   * The unlock service's side of a refund: the order credited first (idempotent, so a refund of an
   * order never credited takes back what the credit just gave), then its share reversed, once.
   */
  async function syncRefund(refundId: string): Promise<Pick<Reversed, 'coinsTaken' | 'unlocksRevoked'>> {
    const refund = (await refundRepo.refundById(db, refundId))!;
    if (refund.unlockSyncedAt) return { coinsTaken: refund.coinsTaken ?? 0, unlocksRevoked: refund.unlocksRevoked ?? 0 };
    const order = (await repo.orderById(db, refund.orderId))!;
    let reversed = { coinsTaken: 0, unlocksRevoked: 0 };
    if (order.kind === 'coins') {
      const context = contextOf(order, `refund:${refund.id}`);
      await unlock.creditOrder(context, { orderId: order.id, userId: order.userId, coins: order.coins ?? 0, bonusCoins: order.bonusCoins ?? 0 });
      const result = await unlock.reverseOrder(context, { orderId: order.id, reference: unlockReference(refund), paidCoins: refund.paidCoins, bonusCoins: refund.bonusCoins });
      reversed = { coinsTaken: result.coinsTaken, unlocksRevoked: result.unlocksRevoked };
    }
    await refundRepo.markRefundSynced(db, refund.id, reversed, now());
    return reversed;
  }

  /** After a refund's commit: the unlock service (coins, unlocks) and VIP; a failure is left to the sweep. */
  async function afterRefund(refund: RefundRow, order: OrderRow): Promise<Pick<Reversed, 'coinsTaken' | 'unlocksRevoked'>> {
    bus.nudge();
    try {
      if (order.kind === 'vip') await settlement.syncOrder(order.id);
      return await syncRefund(refund.id);
    } catch (error) {
      logger.error({ err: error, orderId: order.id, refundId: refund.id }, 'refund not applied by the unlock service yet; the sweep retries');
      return { coinsTaken: 0, unlocksRevoked: 0 };
    }
  }

  /** Asks the provider for a pending refund (again, under the same key) and records its answer. */
  async function completeRefund(pending: RefundRow, paymentId: string): Promise<{ refund: RefundRow; order: OrderRow; vipEnded: boolean } | null> {
    let accepted;
    try {
      accepted = await provider.refund({
        paymentId,
        amount: { amount: pending.amount, currency: pending.currency },
        idempotencyKey: `refund:${pending.id}`,
        metadata: { orderId: pending.orderId, refundId: pending.id },
      });
    } catch (error) {
      // A refusal returns nothing: the refund is dropped. Anything else may have refunded: asked again later.
      if (error instanceof Conflict || error instanceof Invalid || error instanceof NotFound) {
        await database.transaction((tx) => refundRepo.dropPendingRefund(tx, pending.id));
      }
      throw error;
    }
    const at = now();
    const done = await database.transaction(async (tx) => {
      const order = (await refundRepo.lockOrder(tx, { id: pending.orderId }))!;
      const refund = await refundRepo.markRefundSucceeded(tx, pending.id, accepted.refundId, at);
      if (!refund) return null;
      return { refund, ...(await applyRefund(tx, order, refund, at)) };
    });
    return done;
  }

  return {
    /**
     * An operator's refund of `amount` (the whole order when null) through the provider; the answer
     * says what was reversed. A repeat after the order is fully refunded answers 409.
     */
    async refundOrder(orderId: string, amount: number | null, reason: string, by: AdminCall): Promise<RefundAnswer> {
      const at = now();
      const { pending, paymentId } = await database.transaction(async (tx) => {
        const order = await refundRepo.lockOrder(tx, { id: orderId });
        if (!order) throw new NotFound('No such order');
        if (order.status === 'refunded') throw new Conflict('This order is refunded already');
        if (order.status !== 'succeeded' && order.status !== 'partially_refunded') throw new Conflict('Only a paid order can be refunded');
        if (!order.paymentId) throw new Conflict('This order has no payment at the provider to refund');
        if (await openDisputeOf(tx, order.id)) throw new Conflict('This payment is disputed: its money goes back through the dispute');
        const left = order.priceAmount - order.accounted;
        if (left <= 0) throw new Conflict('A refund of this order is under way');
        const wanted = amount ?? left;
        if (wanted > left) throw new Invalid({ amount: `At most ${left} can be refunded` });
        const pending = await refundRepo.insertRefund(tx, { ...newRefund(order, wanted, 'operator', reason, at), status: 'pending' });
        await auditAdminCall(tx, by, {
          action: 'order.refund',
          target: `order:${order.id}`,
          before: { status: order.status, refunded: order.refundedAmount },
          after: { refundId: pending.id, amount: wanted, reason },
        });
        return { pending, paymentId: order.paymentId };
      });
      const done = await completeRefund(pending, paymentId);
      const refund = done?.refund ?? (await refundRepo.refundById(db, pending.id))!;
      const order = done?.order ?? (await repo.orderById(db, orderId))!;
      const reversed = await afterRefund(refund, order);
      return { ...orderView(order), refunded: { amount: order.refundedAmount, currency: order.currency }, reversed: { ...reversed, vipEnded: done?.vipEnded ?? false } };
    },

    /**
     * `charge.refunded`, inside the webhook's transaction: whatever the provider's refunded total has
     * beyond what our refunds (pending ones too) account for was refunded at the provider.
     */
    async providerRefundedInTx(tx: Executor, event: Extract<ProviderEvent, { type: 'payment.refunded' }>, at: Date) {
      const order = await refundRepo.lockOrder(tx, { paymentId: event.paymentId });
      if (!order || (order.status !== 'succeeded' && order.status !== 'partially_refunded')) return null;
      const amount = Math.min(event.amountRefunded.amount, order.priceAmount) - order.accounted;
      if (amount <= 0) return null;
      const refund = await refundRepo.insertRefund(tx, { ...newRefund(order, amount, 'provider', 'refunded at the provider', at), status: 'succeeded', succeededAt: at });
      return { refund, ...(await applyRefund(tx, order, refund, at)) };
    },

    /** `charge.dispute.created` and `.closed`, inside the webhook's transaction. */
    async disputeInTx(tx: Executor, event: DisputeEvent, at: Date) {
      const order = await refundRepo.lockOrder(tx, { paymentId: event.paymentId });
      if (!order || order.status === 'created' || order.status === 'failed' || order.status === 'canceled') return null;
      const context = contextOf(order, `dispute:${event.disputeId}`);
      if (event.type === 'payment.disputed') {
        const amount = Math.min(event.amount.amount, order.priceAmount - order.accounted);
        if (amount <= 0) return null;
        const share = shareOf(order, order.accounted, amount);
        const opened = await refundRepo.insertDispute(tx, {
          id: event.disputeId,
          orderId: order.id,
          amount,
          currency: order.currency,
          reason: event.reason,
          status: 'open',
          ...share,
          openedAt: at,
        });
        if (!opened) return null;
        await appendEvent(tx, context, 'payment.disputed', { orderId: order.id, disputeId: opened.id, amount: { amount, currency: order.currency }, reason: event.reason }, order.userId);
        return { order, refund: null };
      }
      const closed = await refundRepo.closeDispute(tx, event.disputeId, event.won ? 'won' : 'lost', at);
      if (!closed) return null;
      await appendEvent(tx, context, 'payment.dispute_closed', { orderId: order.id, disputeId: closed.id, won: event.won, status: event.status }, order.userId);
      if (event.won) return { order, refund: null };
      // Lost: the suspension stands as a refund, its coins already taken under `dispute:<id>`.
      const refund = await refundRepo.insertRefund(tx, {
        id: closed.id,
        orderId: order.id,
        amount: closed.amount,
        currency: order.currency,
        source: 'dispute',
        reason: `dispute lost: ${closed.reason}`,
        status: 'succeeded',
        paidCoins: closed.paidCoins,
        bonusCoins: closed.bonusCoins,
        createdAt: at,
        succeededAt: at,
      });
      return { refund, ...(await applyRefund(tx, order, refund, at)) };
    },

    /** After a refund or dispute webhook's commit. */
    async afterProviderChange(change: { order: OrderRow; refund: RefundRow | null }, disputeId: string | null): Promise<void> {
      bus.nudge();
      if (change.refund) await afterRefund(change.refund, change.order);
      if (disputeId) await syncDispute(disputeId).catch((error: unknown) => logger.error({ err: error, disputeId }, 'dispute not applied by the unlock service yet; the sweep retries'));
    },

    /** The minute's work: operator refunds left pending (a crash), and refunds and disputes the unlock service is owed. */
    async runDueWork(at: Date): Promise<void> {
      for (const id of await refundRepo.pendingRefundIds(db, new Date(at.getTime() - RETRY_PENDING_AFTER_MS), 20)) {
        try {
          const pending = (await refundRepo.refundById(db, id))!;
          const order = (await repo.orderById(db, pending.orderId))!;
          const done = await completeRefund(pending, order.paymentId!);
          if (done) await afterRefund(done.refund, done.order);
        } catch (error) {
          logger.warn({ err: error, refundId: id }, 'pending refund not completed');
        }
      }
      const before = new Date(at.getTime() - 60_000);
      for (const id of await refundRepo.unsyncedRefundIds(db, before, 100)) {
        await syncRefund(id).catch((error: unknown) => logger.warn({ err: error, refundId: id }, 'refund sync failed; retrying on the next sweep'));
      }
      for (const id of await refundRepo.unsyncedDisputeIds(db, before, 100)) {
        await syncDispute(id).catch((error: unknown) => logger.warn({ err: error, disputeId: id }, 'dispute sync failed; retrying on the next sweep'));
      }
    },
  };

  async function openDisputeOf(tx: Executor, orderId: string): Promise<boolean> {
    return (await refundRepo.disputesOf(tx, orderId)).some((dispute) => dispute.status === 'open');
  }

  /** The unlock service's side of a dispute as it stands: open suspends, won restores, lost is the refund's to sync. */
  async function syncDispute(disputeId: string): Promise<void> {
    const dispute = (await refundRepo.disputeById(db, disputeId))!;
    if (dispute.unlockSyncedAt) return;
    const order = (await repo.orderById(db, dispute.orderId))!;
    const context = contextOf(order, `dispute:${dispute.id}`);
    let reversed: { coinsTaken: number; unlocksRevoked: number } | null = null;
    if (order.kind === 'coins') {
      const reference = `dispute:${dispute.id}`;
      if (dispute.status === 'open') {
        await unlock.creditOrder(context, { orderId: order.id, userId: order.userId, coins: order.coins ?? 0, bonusCoins: order.bonusCoins ?? 0 });
        const result = await unlock.reverseOrder(context, { orderId: order.id, reference, paidCoins: dispute.paidCoins, bonusCoins: dispute.bonusCoins });
        reversed = { coinsTaken: result.coinsTaken, unlocksRevoked: result.unlocksRevoked };
      } else if (dispute.status === 'won') {
        await unlock.restoreReversal(context, order.id, reference);
      }
    } else {
      await settlement.syncVip(order.userId);
    }
    await refundRepo.markDisputeSynced(db, dispute.id, dispute.status, reversed, now());
  }
}

export type Refunds = ReturnType<typeof createRefunds>;
