import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { Conflict, Invalid, NotFound } from '@cliffhanger/platform';
import { declineReason, isHardDecline, type ChargeInput, type ChargeResult, type PaymentProvider, type RefundResult } from './provider.ts';
import { parseStripeWebhook, savedMethodOf } from './stripe-events.ts';

export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** Another API origin than api.stripe.com (the tests' stand-in), e.g. `http://127.0.0.1:12111`. */
  apiBase?: string;
  /** The SDK's own retries of network errors, 409 (a key in use) and 5xx, with backoff; Stripe's idempotency makes them safe. */
  maxNetworkRetries?: number;
}

// Errors that mean the card reference itself is unusable (a spent token, a removed card): the
// payment fails for the customer to fix, as a decline does. Other invalid requests are our bugs.
const unusableMethodCodes = new Set([
  'resource_missing',
  'token_already_used',
  'token_in_use',
  'payment_method_unexpected_state',
  'payment_method_unactivated',
]);

/** A decline (card_error) or an unusable card as a failed result; anything else is thrown on. */
function failedResult(error: unknown): ChargeResult {
  if (error instanceof Stripe.errors.StripeCardError) {
    const reason = declineReason(error);
    return { status: 'failed', paymentId: error.payment_intent?.id ?? null, reason, hardDecline: isHardDecline(reason) };
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code && unusableMethodCodes.has(error.code)) {
    return { status: 'failed', paymentId: error.payment_intent?.id ?? null, reason: error.code, hardDecline: true };
  }
  if (error instanceof Stripe.errors.StripeIdempotencyError) {
    throw new Conflict('This idempotency key was used for another payment');
  }
  throw error;
}

function resultOf(intent: Stripe.PaymentIntent): ChargeResult {
  switch (intent.status) {
    case 'succeeded':
      return { status: 'succeeded', paymentId: intent.id, savedMethod: savedMethodOf(intent) };
    case 'requires_action': {
      // Confirmed with use_stripe_sdk, the action is Stripe.js's to show in the page (handleNextAction);
      // a legacy token's confirmation gets a page to redirect to instead.
      if (!intent.client_secret) throw new Error(`stripe: payment ${intent.id} asks for an action without a client secret`);
      return { status: 'requires_action', paymentId: intent.id, clientSecret: intent.client_secret, actionUrl: intent.next_action?.redirect_to_url?.url ?? null };
    }
    case 'canceled':
      return { status: 'failed', paymentId: intent.id, reason: 'canceled', hardDecline: false };
    case 'requires_payment_method': {
      // Every intent we create is confirmed at once, so this state means its attempt failed.
      const reason = declineReason(intent.last_payment_error);
      return { status: 'failed', paymentId: intent.id, reason, hardDecline: isHardDecline(reason) };
    }
    default:
      return { status: 'processing', paymentId: intent.id };
  }
}

/** Stripe's refusals of a refund as our errors: a payment that cannot be refunded (409), an amount over what is left (422). */
function refundRefused(error: unknown): never {
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    if (error.param === 'amount') throw new Invalid({ amount: 'The refund is more than what is left of the payment' });
    if (error.code === 'resource_missing') throw new NotFound('No such payment');
    throw new Conflict(`The provider refused the refund: ${error.code ?? error.message}`);
  }
  if (error instanceof Stripe.errors.StripeIdempotencyError) throw new Conflict('This idempotency key was used for another refund');
  throw error;
}

async function settle(request: Promise<Stripe.PaymentIntent>): Promise<ChargeResult> {
  try {
    return resultOf(await request);
  } catch (error) {
    return failedResult(error);
  }
}

/**
 * The port on Stripe's PaymentIntents. A charge creates and confirms one PaymentIntent with the
 * browser's ConfirmationToken (a legacy token is first turned into a PaymentMethod) under the caller's idempotency key (Stripe replays the
 * first answer, declines included, for a repeated key). Customers are found by our user id in their
 * metadata, so every saved card of a user hangs on one customer.
 */
export function createStripeProvider(options: StripeProviderOptions): PaymentProvider {
  const base = options.apiBase ? new URL(options.apiBase) : null;
  const stripe = new Stripe(options.secretKey, {
    maxNetworkRetries: options.maxNetworkRetries ?? 3,
    timeout: 30_000,
    telemetry: false,
    appInfo: { name: 'cliffhanger' },
    ...(base && {
      host: base.hostname,
      port: base.port || (base.protocol === 'https:' ? 443 : 80),
      protocol: base.protocol === 'https:' ? 'https' : 'http',
    }),
  });

  async function customerFor(customer: ChargeInput['customer']): Promise<string> {
    const sameEmail = await stripe.customers.list({ email: customer.email, limit: 100 });
    const known = sameEmail.data.find((candidate) => candidate.metadata?.userId === customer.userId);
    if (known) return known.id;
    // Keyed by what is sent, so two first payments side by side make one customer, not two.
    const key = createHash('sha256').update(JSON.stringify([customer.userId, customer.email, customer.name])).digest('hex');
    const created = await stripe.customers.create(
      { email: customer.email, name: customer.name, metadata: { userId: customer.userId } },
      { idempotencyKey: `customer-${key.slice(0, 40)}` },
    );
    return created.id;
  }

  return {
    kind: 'stripe',

    async charge(input) {
      const customer = await customerFor(input.customer);
      const intent = {
        amount: input.amount.amount,
        currency: input.amount.currency.toLowerCase(),
        customer,
        allowed_payment_method_types: ['card' as const],
        confirm: true,
        return_url: input.returnUrl,
        metadata: { orderId: input.orderId, userId: input.customer.userId },
        ...(input.saveForLater && { setup_future_usage: 'off_session' as const }),
      };
      if (!input.paymentToken.startsWith('tok_')) {
        // The ConfirmationToken carries the card and its billing details; use_stripe_sdk leaves
        // 3-D Secure to Stripe.js in the page rather than a redirect.
        return settle(
          stripe.paymentIntents.create(
            { ...intent, confirmation_token: input.paymentToken, use_stripe_sdk: true },
            { idempotencyKey: input.idempotencyKey },
          ),
        );
      }
      let paymentMethod: string;
      try {
        const method = await stripe.paymentMethods.create(
          { type: 'card', card: { token: input.paymentToken } },
          { idempotencyKey: `${input.idempotencyKey}:method` },
        );
        paymentMethod = method.id;
      } catch (error) {
        return failedResult(error);
      }
      return settle(
        stripe.paymentIntents.create(
          { ...intent, payment_method: paymentMethod },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
    },

    chargeSaved: (input) =>
      settle(
        stripe.paymentIntents.create(
          {
            amount: input.amount.amount,
            currency: input.amount.currency.toLowerCase(),
            customer: input.savedMethod.customerId,
            payment_method: input.savedMethod.paymentMethodId,
            allowed_payment_method_types: ['card'],
            off_session: true,
            confirm: true,
            metadata: { orderId: input.orderId },
          },
          { idempotencyKey: input.idempotencyKey },
        ),
      ),

    async retrieve(paymentId) {
      try {
        return resultOf(await stripe.paymentIntents.retrieve(paymentId));
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing') throw new NotFound('No such payment');
        throw error;
      }
    },

    parseWebhook: (rawBody, signature) => parseStripeWebhook(rawBody, signature, options.webhookSecret),

    async refund(input): Promise<RefundResult> {
      let refund: Stripe.Refund;
      try {
        refund = await stripe.refunds.create(
          {
            payment_intent: input.paymentId,
            amount: input.amount.amount,
            reason: 'requested_by_customer',
            metadata: { orderId: input.metadata.orderId, refundId: input.metadata.refundId },
          },
          { idempotencyKey: input.idempotencyKey },
        );
      } catch (error) {
        refundRefused(error);
      }
      if (refund.status === 'failed' || refund.status === 'canceled') throw new Conflict(`The provider could not refund: ${refund.failure_reason ?? refund.status}`);
      return {
        refundId: refund.id,
        status: refund.status === 'succeeded' ? 'succeeded' : 'pending',
        amount: { amount: refund.amount, currency: refund.currency.toUpperCase() },
      };
    },
  };
}
