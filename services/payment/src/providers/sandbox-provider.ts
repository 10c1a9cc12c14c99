import { createHmac, timingSafeEqual } from 'node:crypto';
import { Conflict, Invalid, NotFound, type Database, type Executor, type Logger } from '@cliffhanger/platform';
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
  /** How often unsent webhooks are looked for (retries, and those a dead process left). */
  webhookPollMs?: number;
}

/** The tokenizer's answer in Stripe's shape: a token, or the reason the card's form is wrong (HTTP 402). */
export type TokenAnswer =
  | { id: string; card: { brand: string; last4: string; exp_month: number; exp_year: number } }
  | { error: { code: string; message: string } };

/** `POST /sandbox/v1/confirmation_tokens`' answer in Stripe's shape, or the card form's fault (HTTP 402). */
export type ConfirmationTokenAnswer =
  | {
      id: string;
      object: 'confirmation_token';
      payment_method_preview: { type: 'card'; card: { brand: string; last4: string; exp_month: number; exp_year: number }; billing_details: { email: string | null; name: string | null } };
    }
  | { error: { code: string; message: string } };

/** A card payment as the browser sees it with its client secret (Stripe's PaymentIntent, publishable-key view). */
export interface BrowserIntent {
  id: string;
  object: 'payment_intent';
  status: 'requires_action' | 'succeeded' | 'requires_payment_method' | 'processing';
  amount: number;
  currency: string;
  next_action: { type: 'use_stripe_sdk' } | null;
  last_payment_error: { code: string; message: string } | null;
}

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
  /** `POST /sandbox/v1/confirmation_tokens`: Stripe.js's createConfirmationToken, for the card in `payment_method_data`. */
  createConfirmationToken(body: unknown): Promise<ConfirmationTokenAnswer>;
  /** The card payment behind a client secret; null for a wrong secret or no such payment. */
  browserIntent(paymentId: string, clientSecret: string): Promise<BrowserIntent | null>;
  /** The in-page challenge's outcome (the stand-in of Stripe.js's 3-D Secure iframe): settles as the challenge page does. */
  authenticateInPage(paymentId: string, clientSecret: string, passed: boolean): Promise<BrowserIntent | null>;
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
  /**
   * Starts sending webhooks (once the process serves, so its own webhook route answers): those an
   * earlier process left, then each as its change commits. Until then they wait in the database.
   */
  start(): void;
  /** Stops sending webhooks and waits for attempts under way; unsent ones wait in the database for the next start. */
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

/** The payment as the Stripe Charge a `charge.refunded` event carries (the sandbox has one charge per payment). */
function chargeOf(row: PaymentRow, refunded: number) {
  return {
    id: `ch_${row.id.slice(3)}`,
    object: 'charge',
    amount: row.amount,
    amount_captured: row.amount,
    amount_refunded: refunded,
    refunded: refunded >= row.amount,
    currency: row.currency,
    payment_intent: row.id,
    metadata: { orderId: row.order_id },
    status: 'succeeded',
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
 * PayPal-style redirect, and signed webhooks. Its state is in the database (sandbox_payments), the
 * webhooks it owes included, so a restart loses no payment and no event (sandbox-webhooks.ts).
 */
export function createSandboxProvider(database: Database, options: SandboxOptions): SandboxPaymentProvider {
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const webhooks = options.webhookUrl
    ? createWebhookSender(database, {
        url: options.webhookUrl,
        secret: options.webhookSecret,
        logger: options.logger,
        delaysMs: options.webhookDelaysMs,
        pollMs: options.webhookPollMs,
      })
    : null;

  // A payment's id opens its challenge page already; the secret, derived from it, is what Stripe
  // hands the browser for handleNextAction, and is not accepted for any other payment.
  const clientSecretOf = (paymentId: string) =>
    `${paymentId}_secret_${createHmac('sha256', options.webhookSecret).update(`client secret ${paymentId}`).digest('hex').slice(0, 24)}`;
  const secretMatches = (paymentId: string, clientSecret: string) => {
    const expected = Buffer.from(clientSecretOf(paymentId));
    const given = Buffer.from(clientSecret);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };

  const actionUrlOf = (row: PaymentRow) =>
    row.flow === 'redirect' ? `${publicUrl}/sandbox/paypal/${row.id}` : `${publicUrl}/sandbox/v1/challenge/${row.id}`;

  function resultOf(row: PaymentRow): ChargeResult {
    switch (row.status) {
      case 'succeeded':
        return { status: 'succeeded', paymentId: row.id, savedMethod: savedMethodOf(intentOf(row)) };
      case 'requires_action':
        return { status: 'requires_action', paymentId: row.id, clientSecret: clientSecretOf(row.id), actionUrl: actionUrlOf(row) };
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

  /** A Stripe event, written in the transaction of the change it announces (sent after the commit: `webhooks.kick`). */
  async function recordEvent(tx: Executor, type: string, object: Record<string, unknown>): Promise<void> {
    await webhooks?.record(tx, { id: store.newId('evt'), object: 'event', created: Math.floor(Date.now() / 1000), livemode: false, type, data: { object } });
  }

  /** Every settled payment is announced, as Stripe does: recorded with the settling change, so a crash loses no event. */
  async function announce(tx: Executor, row: PaymentRow | null): Promise<void> {
    if (row?.status !== 'succeeded' && row?.status !== 'failed') return;
    await recordEvent(tx, row.status === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.payment_failed', intentOf(row));
  }

  /**
   * Runs a new payment under its idempotency key: `settle` fills the pending payment in the same
   * transaction, which announces it. A key already used answers the first payment, unchanged and unannounced.
   */
  async function underKey(
    payment: store.NewPayment,
    settle: (tx: Executor, id: string) => Promise<PaymentRow | null>,
  ): Promise<{ row: PaymentRow; fresh: boolean }> {
    const { row, fresh } = await database.transaction(async (tx) => {
      const id = await store.claimPayment(tx, payment);
      if (id) {
        const settled = await settle(tx, id);
        await announce(tx, settled);
        return { row: settled, fresh: true };
      }
      const first = await store.paymentByKey(tx, payment.idempotencyKey);
      if (first && first.request !== payment.request) throw new Conflict('This idempotency key was used for another payment');
      return { row: first, fresh: false };
    });
    if (!row) throw new Error(`sandbox payment under key ${payment.idempotencyKey} vanished`);
    if (fresh) webhooks?.kick();
    return { row, fresh };
  }

  /** The customer passed or failed 3-D Secure: settles a card payment once (a Complete and a Fail sent together: only the winner acts). */
  async function settleChallenge(paymentId: string, passed: boolean): Promise<PaymentRow | null> {
    const { row, settled } = await database.transaction(async (tx) => {
      const pending = await store.paymentById(tx, paymentId);
      if (!pending || pending.flow !== 'card') return { row: null, settled: false };
      if (pending.status !== 'requires_action') return { row: pending, settled: false };
      const change: store.PaymentChange = passed
        ? { status: 'succeeded' }
        : { status: 'failed', failureCode: 'payment_intent_authentication_failure' };
      const changed = await store.changePayment(tx, paymentId, 'requires_action', change);
      if (changed?.status === 'succeeded' && changed.save_for_later) {
        await store.attachMethod(tx, changed.payment_method_id!, changed.customer_id!);
      }
      await announce(tx, changed);
      return { row: changed ?? (await store.paymentById(tx, paymentId)), settled: Boolean(changed) };
    });
    if (settled) webhooks?.kick();
    return row;
  }

  /** Stripe's PaymentIntent statuses as the browser's Stripe.js reads them. */
  function browserIntentOf(row: PaymentRow): BrowserIntent {
    const failure = row.failure_code ? declineReason({ code: row.failure_code, decline_code: row.decline_code }) : null;
    return {
      id: row.id,
      object: 'payment_intent',
      status: row.status === 'succeeded' ? 'succeeded' : row.status === 'requires_action' ? 'requires_action' : row.status === 'pending' ? 'processing' : 'requires_payment_method',
      amount: row.amount,
      currency: row.currency,
      next_action: row.status === 'requires_action' ? { type: 'use_stripe_sdk' } : null,
      last_payment_error: failure ? { code: row.failure_code!, message: failure === 'authentication_failed' ? 'We are unable to authenticate your payment method.' : 'Your card was declined.' } : null,
    };
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

    /**
     * Stripe's refund of a PaymentIntent, card or PayPal stand-in alike: under the payment's row lock,
     * so refunds side by side never return more than was taken; a key replays its first refund. As
     * Stripe does, `charge.refunded` follows as a webhook with the charge's refunded total.
     */
    async refund(input) {
      checkMoney(input.amount);
      const request = JSON.stringify([input.paymentId, input.amount.amount, input.amount.currency.toLowerCase()]);
      const { refund, announced } = await database.transaction(async (tx) => {
        const payment = await store.lockForRefund(tx, input.paymentId);
        if (!payment) throw new NotFound('No such payment');
        const earlier = await store.refundByKey(tx, input.idempotencyKey);
        if (earlier) {
          if (earlier.request !== request) throw new Conflict('This idempotency key was used for another refund');
          return { refund: earlier, announced: false };
        }
        if (payment.status !== 'succeeded') throw new Conflict('Only a succeeded payment can be refunded');
        if (payment.currency !== input.amount.currency.toLowerCase()) throw new Invalid({ amount: 'The refund must be in the payment\'s currency' });
        if (payment.refunded >= payment.amount) throw new Conflict('The payment is refunded already');
        if (input.amount.amount > payment.amount - payment.refunded) throw new Invalid({ amount: 'The refund is more than what is left of the payment' });
        const row = await store.insertRefund(tx, {
          idempotencyKey: input.idempotencyKey,
          request,
          paymentId: payment.id,
          amount: input.amount.amount,
          currency: payment.currency,
          orderId: input.metadata.orderId,
          refundRef: input.metadata.refundId,
        });
        await recordEvent(tx, 'charge.refunded', chargeOf(payment, payment.refunded + row.amount));
        return { refund: row, announced: true };
      });
      if (announced) webhooks?.kick();
      return { refundId: refund.id, status: 'succeeded', amount: { amount: refund.amount, currency: refund.currency.toUpperCase() } };
    },

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
      const row = await settleChallenge(paymentId, passed);
      if (!row) return null;
      return withQuery(row.return_url ?? '/', {
        payment_intent: row.id,
        redirect_status: row.status === 'succeeded' ? 'succeeded' : 'failed',
      });
    },

    async createConfirmationToken(body) {
      const input = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      const data = typeof input.payment_method_data === 'object' && input.payment_method_data !== null ? (input.payment_method_data as Record<string, unknown>) : {};
      const billing = typeof data.billing_details === 'object' && data.billing_details !== null ? (data.billing_details as Record<string, unknown>) : {};
      const text = (value: unknown) => (typeof value === 'string' && value.length <= 320 ? value : null);
      if (billing.email !== undefined && text(billing.email) === null) return { error: { code: 'email_invalid', message: 'Your email address is invalid.' } };
      const checked = checkCard(data.card);
      if (!checked.ok) return { error: { code: checked.code, message: checked.message } };
      const { card } = checked;
      const id = await store.insertToken(database.db, card, 'ctoken');
      return {
        id,
        object: 'confirmation_token',
        payment_method_preview: {
          type: 'card',
          card: { brand: card.brand, last4: card.last4, exp_month: card.expMonth, exp_year: card.expYear },
          billing_details: { email: text(billing.email), name: text(billing.name) },
        },
      };
    },

    async browserIntent(paymentId, clientSecret) {
      if (!secretMatches(paymentId, clientSecret)) return null;
      const row = await store.paymentById(database.db, paymentId);
      return row && row.flow === 'card' ? browserIntentOf(row) : null;
    },

    async authenticateInPage(paymentId, clientSecret, passed) {
      if (!secretMatches(paymentId, clientSecret)) return null;
      const row = await settleChallenge(paymentId, passed);
      return row && browserIntentOf(row);
    },

    async finishRedirect(paymentId, approved) {
      const { row, settled } = await database.transaction(async (tx) => {
        const pending = await store.paymentById(tx, paymentId);
        if (!pending || pending.flow !== 'redirect') return { row: null, settled: false };
        if (pending.status !== 'requires_action') return { row: pending, settled: false };
        const changed = await store.changePayment(tx, paymentId, 'requires_action', { status: approved ? 'succeeded' : 'canceled' });
        await announce(tx, changed);
        return { row: changed ?? (await store.paymentById(tx, paymentId)), settled: Boolean(changed) };
      });
      if (!row) return null;
      if (settled) webhooks?.kick();
      if (row.status !== 'succeeded') return row.cancel_url ?? '/';
      return withQuery(row.return_url ?? '/', { payment_intent: row.id, redirect_status: 'succeeded' });
    },

    async setSavedCardBehaviour(paymentMethodId, cardNumber) {
      if (!(await store.setMethodOutcome(database.db, paymentMethodId, outcomeOfCard(cardNumber)))) throw new NotFound('No such payment method');
    },

    start: () => webhooks?.start(),
    stop: async () => webhooks?.stop(),
  };
}
