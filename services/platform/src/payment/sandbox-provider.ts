import type { Database, Executor } from '../db/database.ts';
import { Conflict, NotFound } from '../errors.ts';
import type { Logger } from '../logger.ts';
import {
  declineReason,
  isHardDecline,
  type ChargeResult,
  type Money,
  type PaymentProvider,
  type RedirectInput,
} from './provider.ts';
import * as store from './sandbox-store.ts';
import type { PaymentRow } from './sandbox-store.ts';
import { createWebhookSender } from './sandbox-webhooks.ts';
import { parseStripeWebhook, savedMethodOf } from './stripe-events.ts';
import { checkCard, decideCharge, outcomeOfCard, type ChargeDecision } from './test-cards.ts';

export interface SandboxOptions {
  /** Origin the browser reaches the sandbox's pages at; '' makes same-origin relative links. */
  publicUrl: string;
  /** Where settled payments are POSTed as Stripe-shaped events; null sends none. */
  webhookUrl: string | null;
  /** Signs the events; `parseWebhook` checks with it. */
  webhookSecret: string;
  logger: Logger;
  webhookDelaysMs?: number[];
}

/** The tokenizer's answer in Stripe's shape: a token, or the reason the card's form is wrong (HTTP 402). */
export type TokenAnswer =
  | { id: string; card: { brand: string; last4: string; exp_month: number; exp_year: number } }
  | { error: { code: string; message: string } };

/** What the challenge and PayPal pages show. */
export interface PaymentView {
  id: string;
  flow: PaymentRow['flow'];
  status: PaymentRow['status'];
  amount: Money;
  card: { brand: string; last4: string } | null;
}

export interface SandboxPaymentProvider extends PaymentProvider {
  readonly kind: 'sandbox';
  createRedirect(input: RedirectInput): Promise<{ paymentId: string; approveUrl: string }>;
  /** `POST /sandbox/v1/tokens`: checks any input, never throws for a bad one. */
  tokenize(body: unknown): Promise<TokenAnswer>;
  describePayment(paymentId: string): Promise<PaymentView | null>;
  /** The customer passed or failed 3-D Secure: settles a card payment once; answers where the browser goes, null for no such payment. */
  finishChallenge(paymentId: string, passed: boolean): Promise<string | null>;
  /** The buyer approved or canceled a redirect payment: the same, for the PayPal stand-in. */
  finishRedirect(paymentId: string, approved: boolean): Promise<string | null>;
  /**
   * For tests of renewals: from now on the saved card answers as the test card `cardNumber` does
   * (its bank started declining it, say). Stripe has no such call; its 0341 card cannot be saved
   * through a charge, which is the only way this port saves one.
   */
  setSavedCardBehaviour(paymentMethodId: string, cardNumber: string): Promise<void>;
  /** Stops webhook retries and waits for deliveries under way. */
  stop(): Promise<void>;
}

function checkMoney(amount: Money): void {
  if (!Number.isSafeInteger(amount.amount) || amount.amount <= 0 || !/^[a-z]{3}$/i.test(amount.currency)) {
    throw new Error(`payment: invalid amount ${JSON.stringify(amount)}`);
  }
}

// What a key was first used for: a replay with the same key must ask for the same payment.
const requestOf = (flow: PaymentRow['flow'], orderId: string, amount: Money) =>
  JSON.stringify([flow, orderId, amount.amount, amount.currency.toLowerCase()]);

const changeFor = (decision: ChargeDecision): store.PaymentChange =>
  decision.kind === 'succeed'
    ? { status: 'succeeded' }
    : decision.kind === 'authenticate'
      ? { status: 'requires_action' }
      : { status: 'failed', failureCode: decision.code, declineCode: decision.declineCode };

/** The payment as a Stripe PaymentIntent: what its webhook carries, and what `savedMethodOf` reads. */
function intentOf(row: PaymentRow) {
  const succeeded = row.status === 'succeeded';
  return {
    id: row.id,
    object: 'payment_intent',
    amount: row.amount,
    amount_received: succeeded ? row.amount : 0,
    currency: row.currency,
    status: succeeded ? 'succeeded' : row.status === 'failed' ? 'requires_payment_method' : row.status,
    metadata: { orderId: row.order_id },
    customer: row.customer_id,
    payment_method: row.payment_method_id,
    setup_future_usage: row.save_for_later ? 'off_session' : null,
    last_payment_error: row.failure_code ? { type: 'card_error', code: row.failure_code, decline_code: row.decline_code } : null,
    livemode: false,
  };
}

/** Add query parameters to a URL that may be relative. */
function withQuery(url: string, params: Record<string, string>): string {
  const [path, hash] = url.split(/#(.*)/s, 2);
  return `${path}${path!.includes('?') ? '&' : '?'}${new URLSearchParams(params)}${hash === undefined ? '' : `#${hash}`}`;
}

/**
 * A payment provider that behaves like Stripe in test mode: Stripe's test cards and their outcomes,
 * single-use tokens, idempotency keys, saved cards for renewals, a 3-D Secure challenge page, a
 * PayPal-style redirect, and signed webhooks. Its state is in the database (sandbox_payments).
 */
export function createSandboxProvider(database: Database, options: SandboxOptions): SandboxPaymentProvider {
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const webhooks = options.webhookUrl
    ? createWebhookSender({ url: options.webhookUrl, secret: options.webhookSecret, logger: options.logger, delaysMs: options.webhookDelaysMs })
    : null;

  const actionUrlOf = (row: PaymentRow) =>
    row.flow === 'redirect' ? `${publicUrl}/sandbox/paypal/${row.id}` : `${publicUrl}/sandbox/v1/challenge/${row.id}`;

  function resultOf(row: PaymentRow): ChargeResult {
    switch (row.status) {
      case 'succeeded':
        return { status: 'succeeded', paymentId: row.id, savedMethod: savedMethodOf(intentOf(row)) };
      case 'requires_action':
        return { status: 'requires_action', paymentId: row.id, actionUrl: actionUrlOf(row) };
      case 'canceled':
        return { status: 'failed', paymentId: row.id, reason: 'canceled', hardDecline: false };
      case 'failed': {
        const reason = declineReason({ code: row.failure_code, decline_code: row.decline_code });
        return { status: 'failed', paymentId: row.id, reason, hardDecline: isHardDecline(reason) };
      }
      default:
        throw new Error(`sandbox payment ${row.id} is still pending`);
    }
  }

  /** Every settled payment is announced, as Stripe does, after its transaction committed. */
  function announce(row: PaymentRow): void {
    if (row.status !== 'succeeded' && row.status !== 'failed') return;
    webhooks?.send({
      id: store.newId('evt'),
      object: 'event',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      type: row.status === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.payment_failed',
      data: { object: intentOf(row) },
    });
  }

  /**
   * Runs a new payment under its idempotency key: `settle` fills the pending payment in the same
   * transaction. A key already used answers the first payment, unchanged and unannounced.
   */
  async function underKey(
    payment: store.NewPayment,
    settle: (tx: Executor, id: string) => Promise<PaymentRow | null>,
  ): Promise<{ row: PaymentRow; fresh: boolean }> {
    const { row, fresh } = await database.transaction(async (tx) => {
      const id = await store.claimPayment(tx, payment);
      if (id) return { row: await settle(tx, id), fresh: true };
      const first = await store.paymentByKey(tx, payment.idempotencyKey);
      if (first && first.request !== payment.request) throw new Conflict('This idempotency key was used for another payment');
      return { row: first, fresh: false };
    });
    if (!row) throw new Error(`sandbox payment under key ${payment.idempotencyKey} vanished`);
    if (fresh) announce(row);
    return { row, fresh };
  }

  return {
    kind: 'sandbox',

    async charge(input) {
      checkMoney(input.amount);
      const { row } = await underKey(
        {
          idempotencyKey: input.idempotencyKey,
          request: requestOf('card', input.orderId, input.amount),
          orderId: input.orderId,
          amount: input.amount.amount,
          currency: input.amount.currency.toLowerCase(),
          flow: 'card',
          returnUrl: input.returnUrl,
          saveForLater: input.saveForLater,
        },
        async (tx, id) => {
          const card = await store.takeToken(tx, input.paymentToken);
          if (typeof card === 'string') return store.changePayment(tx, id, 'pending', { status: 'failed', failureCode: card });
          const customerId = await store.customerFor(tx, input.customer.userId);
          const paymentMethodId = await store.insertMethod(tx, card);
          const decision = decideCharge(card.outcome, 'on');
          if (decision.kind === 'succeed' && input.saveForLater) await store.attachMethod(tx, paymentMethodId, customerId);
          return store.changePayment(tx, id, 'pending', { ...changeFor(decision), customerId, paymentMethodId });
        },
      );
      return resultOf(row);
    },

    async chargeSaved(input) {
      checkMoney(input.amount);
      const { customerId, paymentMethodId } = input.savedMethod;
      const { row } = await underKey(
        {
          idempotencyKey: input.idempotencyKey,
          request: requestOf('saved_card', input.orderId, input.amount),
          orderId: input.orderId,
          amount: input.amount.amount,
          currency: input.amount.currency.toLowerCase(),
          flow: 'saved_card',
        },
        async (tx, id) => {
          const method = await store.findMethod(tx, paymentMethodId);
          if (!method || method.customer_id !== customerId) {
            return store.changePayment(tx, id, 'pending', { status: 'failed', failureCode: 'resource_missing' });
          }
          const change = changeFor(decideCharge(method.outcome, 'off'));
          return store.changePayment(tx, id, 'pending', { ...change, customerId, paymentMethodId });
        },
      );
      return resultOf(row);
    },

    async createRedirect(input) {
      checkMoney(input.amount);
      const { row } = await underKey(
        {
          idempotencyKey: input.idempotencyKey,
          request: requestOf('redirect', input.orderId, input.amount),
          orderId: input.orderId,
          amount: input.amount.amount,
          currency: input.amount.currency.toLowerCase(),
          flow: 'redirect',
          returnUrl: input.returnUrl,
          cancelUrl: input.cancelUrl,
        },
        (tx, id) => store.changePayment(tx, id, 'pending', { status: 'requires_action' }),
      );
      return { paymentId: row.id, approveUrl: actionUrlOf(row) };
    },

    async retrieve(paymentId) {
      const row = await store.paymentById(database.db, paymentId);
      if (!row) throw new NotFound('No such payment');
      return resultOf(row);
    },

    parseWebhook: (rawBody, signature) => parseStripeWebhook(rawBody, signature, options.webhookSecret),

    async tokenize(body) {
      const input = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      if (input.email !== undefined && (typeof input.email !== 'string' || input.email.length > 320)) {
        return { error: { code: 'email_invalid', message: 'Your email address is invalid.' } };
      }
      const checked = checkCard(input.card);
      if (!checked.ok) return { error: { code: checked.code, message: checked.message } };
      const { card } = checked;
      const id = await store.insertToken(database.db, card);
      return { id, card: { brand: card.brand, last4: card.last4, exp_month: card.expMonth, exp_year: card.expYear } };
    },

    async describePayment(paymentId) {
      const row = await store.paymentById(database.db, paymentId);
      if (!row) return null;
      const method = row.payment_method_id ? await store.findMethod(database.db, row.payment_method_id) : null;
      return {
        id: row.id,
        flow: row.flow,
        status: row.status,
        amount: { amount: row.amount, currency: row.currency },
        card: method && { brand: method.brand, last4: method.last4 },
      };
    },

    async finishChallenge(paymentId, passed) {
      const { row, settled } = await database.transaction(async (tx) => {
        const pending = await store.paymentById(tx, paymentId);
        if (!pending || pending.flow !== 'card') return { row: null, settled: false };
        if (pending.status !== 'requires_action') return { row: pending, settled: false };
        const change: store.PaymentChange = passed
          ? { status: 'succeeded' }
          : { status: 'failed', failureCode: 'payment_intent_authentication_failure' };
        // The guarded change first: of a Complete and a Fail sent together, only the winner acts.
        const changed = await store.changePayment(tx, paymentId, 'requires_action', change);
        if (changed?.status === 'succeeded' && changed.save_for_later) {
          await store.attachMethod(tx, changed.payment_method_id!, changed.customer_id!);
        }
        return { row: changed ?? (await store.paymentById(tx, paymentId)), settled: Boolean(changed) };
      });
      if (!row) return null;
      if (settled) announce(row);
      return withQuery(row.return_url ?? '/', {
        payment_intent: row.id,
        redirect_status: row.status === 'succeeded' ? 'succeeded' : 'failed',
      });
    },

    async finishRedirect(paymentId, approved) {
      const { row, settled } = await database.transaction(async (tx) => {
        const pending = await store.paymentById(tx, paymentId);
        if (!pending || pending.flow !== 'redirect') return { row: null, settled: false };
        if (pending.status !== 'requires_action') return { row: pending, settled: false };
        const changed = await store.changePayment(tx, paymentId, 'requires_action', { status: approved ? 'succeeded' : 'canceled' });
        return { row: changed ?? (await store.paymentById(tx, paymentId)), settled: Boolean(changed) };
      });
      if (!row) return null;
      if (settled) announce(row);
      if (row.status !== 'succeeded') return row.cancel_url ?? '/';
      return withQuery(row.return_url ?? '/', { payment_intent: row.id, redirect_status: 'succeeded' });
    },

    async setSavedCardBehaviour(paymentMethodId, cardNumber) {
      if (!(await store.setMethodOutcome(database.db, paymentMethodId, outcomeOfCard(cardNumber)))) throw new NotFound('No such payment method');
    },

    stop: async () => webhooks?.stop(),
  };
}
