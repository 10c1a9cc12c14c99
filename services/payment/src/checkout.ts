import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { appendEvent, Conflict, NotFound, utmOf, type RequestContext } from '@cliffhanger/platform';
import type { ChargeResult } from './providers/index.ts';
import { paymentRepository as repo, type OrderRow, type PayRequestRow } from './repository.ts';
import type { MailLanguage, OrderStatus } from './schema.ts';
import type { Core } from './core.ts';
import type { Settlement } from './settlement.ts';
import { declineMessage, orderView, type Order, type PayResult } from './views.ts';

export interface PayInput {
  orderId: string;
  paymentToken: string;
  email: string;
  firstName: string;
  lastName: string;
  /** The buyer's interface language, for the mails about this order and its subscription. */
  language?: MailLanguage;
}

/** What a pay call records about its buyer on the order. */
const buyerFields = (input: Pick<PayInput, 'email' | 'language'>) => ({ email: input.email, ...(input.language ? { language: input.language } : {}) });

export interface PayOptions {
  idempotencyKey: string;
  /** Origin of the storefront links handed to the provider (where the buyer returns after 3-D Secure). */
  origin: string;
}

/** How long a replay waits for the first call with its key to answer, before answering 409. */
const REPLAY_WAIT_MS = 10_000;
const REPLAY_POLL_MS = 50;
/** A claim this old whose call never answered died with its process: a replay takes it over. */
const STALE_CLAIM_MS = 60_000;

/** Orders whose money was taken, refunded since or not. */
const PAID: ReadonlySet<OrderStatus> = new Set(['succeeded', 'partially_refunded', 'refunded']);

const PROCESSING_MESSAGE = 'Your payment is being processed. This page updates once it is done.';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const resultUrl = (origin: string, orderId: string) => `${origin}/order/result?orderId=${encodeURIComponent(orderId)}`;

/**
 * Orders and paying them. A pay call claims its Idempotency-Key (hashed, with a hash of its body)
 * by inserting a row before it charges: of twenty identical calls at once one inserts, the others
 * wait for its answer and repeat it. The answer is written in the transaction that changes the
 * order, and the provider gets an idempotency key of its own, so even a call that dies between
 * charge and commit is finished by its replay without a second charge.
 */
export function createCheckout(core: Core, settlement: Settlement) {
  const { database, bus, provider, now } = core;
  const db = database.db;

  async function ownOrder(userId: string, orderId: string): Promise<OrderRow> {
    const order = await repo.orderById(db, orderId);
    if (!order || order.userId !== userId) throw new NotFound('No such order');
    return order;
  }

  function refuseClosed(order: OrderRow): void {
    if (order.status === 'refunded' || order.status === 'canceled') throw new Conflict('This order is closed: please place a new one');
  }

  /** The offer is for a first purchase: said before any money moves. Settling holds it in the database whatever passes here. */
  async function refuseOfferPaidBefore(userId: string, bought: { firstPurchaseOnly: boolean }): Promise<void> {
    if (bought.firstPurchaseOnly && (await repo.hasPaid(db, userId))) throw new Conflict('The first purchase offer is only for your first purchase');
  }

  /** Records the answer of the claimed call in the transaction of the order's change. */
  const finish = (userId: string, keyHash: string) => ({
    /** Paid before this call (another key, a webhook): nothing to charge. */
    async alreadyPaid(orderId: string): Promise<PayResult> {
      const result: PayResult = { orderId, status: 'succeeded' };
      await repo.finishPayRequest(db, userId, keyHash, result);
      return result;
    },

    async succeeded(orderId: string, paymentId: string, charge: Extract<ChargeResult, { status: 'succeeded' }> | null, buyer: PayInput): Promise<PayResult> {
      const result: PayResult = { orderId, status: 'succeeded' };
      const settled = await database.transaction(async (tx) => {
        await repo.setOrderFields(tx, orderId, buyerFields(buyer));
        const won = await settlement.settleInTx(tx, orderId, paymentId, charge?.savedMethod ?? null, now());
        await repo.finishPayRequest(tx, userId, keyHash, result);
        return won;
      });
      if (settled) await settlement.afterSettled(settled);
      return result;
    },

    /**
     * Waiting for the buyer (3-D Secure: the page takes the challenge in place with `clientSecret`, or
     * leaves for `actionUrl`, which pages loaded before in-page challenges still use) or for the bank.
     */
    async waiting(orderId: string, paymentId: string, action: { clientSecret: string; actionUrl: string | null } | null, buyer: PayInput): Promise<PayResult> {
      const result: PayResult = action
        ? { orderId, status: 'requires_action', clientSecret: action.clientSecret, ...(action.actionUrl ? { actionUrl: action.actionUrl } : {}) }
        : { orderId, status: 'requires_action', message: PROCESSING_MESSAGE };
      await database.transaction(async (tx) => {
        await repo.moveOrder(tx, orderId, ['created', 'failed'], { status: 'created', paymentId, ...buyerFields(buyer), failureReason: null, updatedAt: now() });
        await repo.finishPayRequest(tx, userId, keyHash, result);
      });
      return result;
    },

    async failed(orderId: string, paymentId: string | null, reason: string, buyer: PayInput): Promise<PayResult> {
      const result: PayResult = { orderId, status: 'failed', message: declineMessage(reason) };
      await database.transaction(async (tx) => {
        const order = await repo.moveOrder(tx, orderId, ['created', 'failed'], { status: 'failed', paymentId, failureReason: reason, ...buyerFields(buyer), updatedAt: now() });
        if (order) await settlement.paymentFailedEvent(tx, order, reason);
        await repo.finishPayRequest(tx, userId, keyHash, result);
      });
      bus.nudge();
      return result;
    },
  });

  /** The claimed call: charges unless the order is paid or still waits on an earlier attempt. */
  async function chargeClaimed(userId: string, keyHash: string, input: PayInput, options: PayOptions): Promise<PayResult> {
    const record = finish(userId, keyHash);
    const order = await ownOrder(userId, input.orderId);
    refuseClosed(order);
    if (order.status === 'succeeded') return record.alreadyPaid(order.id);
    // An earlier attempt may still be waiting for the buyer (3-D Secure, PayPal): charging again could take the money twice.
    if (order.status === 'created' && order.paymentId) {
      const earlier = await provider.retrieve(order.paymentId).catch(() => null);
      if (earlier?.status === 'succeeded') return record.succeeded(order.id, earlier.paymentId, earlier, input);
      if (earlier?.status === 'requires_action') return record.waiting(order.id, earlier.paymentId, earlier, input);
      if (earlier?.status === 'processing') return record.waiting(order.id, earlier.paymentId, null, input);
    }
    const charge = await provider.charge({
      orderId: order.id,
      amount: { amount: order.priceAmount, currency: order.currency },
      paymentToken: input.paymentToken,
      customer: { userId, email: input.email, name: `${input.firstName} ${input.lastName}`.trim() },
      idempotencyKey: `pay:${order.id}:${options.idempotencyKey}`,
      saveForLater: order.kind === 'vip',
      returnUrl: resultUrl(options.origin, order.id),
    });
    switch (charge.status) {
      case 'succeeded':
        return record.succeeded(order.id, charge.paymentId, charge, input);
      case 'requires_action':
        return record.waiting(order.id, charge.paymentId, charge, input);
      case 'processing':
        return record.waiting(order.id, charge.paymentId, null, input);
      case 'failed':
        return record.failed(order.id, charge.paymentId, charge.reason, input);
    }
  }

  async function runClaimed(userId: string, keyHash: string, input: PayInput, options: PayOptions): Promise<PayResult> {
    try {
      return await chargeClaimed(userId, keyHash, input, options);
    } catch (error) {
      // Nothing was recorded: free the key so a replay runs the call again (the provider's own key keeps it one charge).
      await repo.releasePayRequest(db, userId, keyHash);
      throw error;
    }
  }

  /** A call with a key seen before: the first call's answer, once there is one. */
  async function replay(first: PayRequestRow, fingerprint: string, userId: string, input: PayInput, options: PayOptions): Promise<PayResult> {
    const deadline = Date.now() + REPLAY_WAIT_MS;
    let row: PayRequestRow | null = first;
    for (;;) {
      if (!row) return pay(userId, input, options); // the first call failed and let go of the key
      if (row.fingerprint !== fingerprint) throw new Conflict('This Idempotency-Key was used for another payment');
      if (row.state === 'done') return row.result as PayResult;
      const at = now();
      if (await repo.takeOverPayRequest(db, userId, row.keyHash, new Date(at.getTime() - STALE_CLAIM_MS), at)) {
        return runClaimed(userId, row.keyHash, input, options);
      }
      if (Date.now() > deadline) throw new Conflict('This payment is still being processed. Please try again in a moment.');
      await sleep(REPLAY_POLL_MS);
      row = await repo.payRequest(db, userId, row.keyHash);
    }
  }

  async function pay(userId: string, input: PayInput, options: PayOptions): Promise<PayResult> {
    const keyHash = sha256(options.idempotencyKey);
    const fingerprint = sha256(JSON.stringify([input.orderId, input.paymentToken, input.email, input.firstName, input.lastName]));
    const earlier = await repo.payRequest(db, userId, keyHash);
    if (earlier) return replay(earlier, fingerprint, userId, input, options);

    const order = await ownOrder(userId, input.orderId);
    refuseClosed(order);
    if (order.status === 'succeeded') return { orderId: order.id, status: 'succeeded' };
    await refuseOfferPaidBefore(userId, order);

    const claimed = await repo.claimPayRequest(db, { userId, keyHash, fingerprint, orderId: order.id, state: 'in_flight', claimedAt: now() });
    if (claimed) return runClaimed(userId, keyHash, input, options);
    const holder = await repo.payRequest(db, userId, keyHash);
    if (holder) return replay(holder, fingerprint, userId, input, options);
    throw new Conflict('This order is being paid already. Please wait a moment.');
  }

  return {
    async createOrder(context: RequestContext, userId: string, planId: string): Promise<Order> {
      const plan = await repo.planById(db, planId);
      if (!plan || !plan.active) throw new NotFound('No such plan');
      await refuseOfferPaidBefore(userId, plan);
      const at = now();
      const { attribution } = context;
      const order = await database.transaction(async (tx) => {
        const row = await repo.insertOrder(tx, {
          id: randomUUID(),
          userId,
          planId: plan.id,
          kind: plan.kind,
          title: plan.title,
          priceAmount: plan.priceAmount,
          currency: plan.currency,
          coins: plan.coins,
          bonusCoins: plan.bonusCoins,
          periodDays: plan.periodDays,
          periodMonths: plan.periodMonths,
          firstPurchaseOnly: plan.firstPurchaseOnly,
          status: 'created',
          referrerToken: attribution.referrerToken,
          fbclid: attribution.fbclid,
          ttclid: attribution.ttclid,
          ...utmOf(attribution),
          createdAt: at,
          updatedAt: at,
        });
        const price = { amount: row.priceAmount, currency: row.currency };
        await appendEvent(tx, context, 'order.created', { orderId: row.id, planId: row.planId, price }, userId);
        return row;
      });
      bus.nudge();
      return orderView(order);
    },

    pay,

    /** PayPal's flow: the buyer approves at `approveUrl`; the outcome arrives as a webhook. */
    async startRedirect(userId: string, orderId: string, origin: string): Promise<{ approveUrl: string }> {
      if (!provider.createRedirect) throw new NotFound('PayPal is not available');
      const order = await ownOrder(userId, orderId);
      refuseClosed(order);
      if (order.status === 'succeeded') throw new Conflict('This order is paid already');
      await refuseOfferPaidBefore(userId, order);
      const { paymentId, approveUrl } = await provider.createRedirect({
        orderId: order.id,
        amount: { amount: order.priceAmount, currency: order.currency },
        idempotencyKey: `paypal:${order.id}`,
        returnUrl: resultUrl(origin, order.id),
        cancelUrl: `${origin}/api/webhook/payment/paypal-cancel?orderId=${encodeURIComponent(order.id)}`,
      });
      await repo.moveOrder(db, order.id, ['created', 'failed'], { status: 'created', paymentId, updatedAt: now() });
      return { approveUrl };
    },

    /**
     * `POST /api/payment/complete`: after the page took the 3-D Secure challenge in place
     * (`handleNextAction`), the payment's outcome as the provider has it now, settled at once rather
     * than when its webhook comes. Settling is the webhook's own conditional update, so of this call,
     * the webhook and the minute's sweep only the first changes anything; asking again answers the same.
     */
    async complete(userId: string, orderId: string): Promise<PayResult> {
      const order = await ownOrder(userId, orderId);
      if (PAID.has(order.status)) return { orderId: order.id, status: 'succeeded' };
      if (!order.paymentId) throw new Conflict('This order has no payment to complete: please pay it first');
      const payment = await provider.retrieve(order.paymentId);
      switch (payment.status) {
        case 'succeeded':
          await settlement.settleOrder(order.id, payment.paymentId, payment.savedMethod);
          return { orderId: order.id, status: 'succeeded' };
        case 'failed': {
          const reason = payment.reason;
          await database.transaction(async (tx) => {
            const failed = await repo.failPendingPayment(tx, order.id, order.paymentId!, reason, now());
            if (failed) await settlement.paymentFailedEvent(tx, failed, reason);
          });
          bus.nudge();
          return { orderId: order.id, status: 'failed', message: declineMessage(reason) };
        }
        case 'requires_action':
          return { orderId: order.id, status: 'requires_action', clientSecret: payment.clientSecret, ...(payment.actionUrl ? { actionUrl: payment.actionUrl } : {}) };
        case 'processing':
          return { orderId: order.id, status: 'requires_action', message: PROCESSING_MESSAGE };
      }
    },

    /** The buyer left PayPal: an order still waiting is canceled; any other is left as it is. */
    async cancelRedirect(orderId: string): Promise<void> {
      await repo.moveOrder(db, orderId, ['created'], { status: 'canceled', updatedAt: now() });
    },
  };
}

export type Checkout = ReturnType<typeof createCheckout>;
