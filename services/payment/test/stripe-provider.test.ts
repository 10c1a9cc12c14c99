import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict } from '@cliffhanger/platform';
import { createStripeProvider } from '../src/providers/index.ts';
import { paymentContract } from './provider.contract.ts';
import { parseStripeForm, startStripeApiServer, stripeTestPaymentMethod, stripeTestToken, type StripeApiServer } from './stripe-api-server.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const secretKey = 'sk_test_cliffhanger';
const webhookSecret = 'whsec_stripe_test_secret';

paymentContract('stripe (the real SDK against a local stand-in of its API)', async () => {
  const api = await startStripeApiServer({ secretKey });
  const stripe = new Stripe(secretKey, { host: '127.0.0.1', port: new URL(api.url).port, protocol: 'http', telemetry: false });
  return {
    provider: createStripeProvider({ secretKey, webhookSecret, apiBase: api.url }),
    // Stripe.js makes ConfirmationTokens in the browser; the test helper makes the same for a test card.
    tokenize: async (card) => (await stripe.testHelpers.confirmationTokens.create({ payment_method: stripeTestPaymentMethod(card) })).id,
    legacyToken: async (card) => stripeTestToken(card),
    async authenticate(action, passed) {
      // What Stripe.js's challenge iframe does for handleNextAction({ clientSecret }).
      expect(action.actionUrl).toBeNull();
      const response = await fetch(`${api.url}/test_3ds/${action.paymentId}/${passed ? 'complete' : 'fail'}`, { method: 'POST' });
      expect(response.status).toBe(200);
    },
    countPayments: async (orderId) => api.intents().filter((intent) => (intent.metadata as Record<string, string>).orderId === orderId).length,
    webhookSecret,
    close: () => api.close(),
  };
});

describe('stripe adapter, as Stripe sees it', () => {
  let api: StripeApiServer;
  beforeAll(async () => {
    api = await startStripeApiServer({ secretKey });
  });
  afterAll(() => api?.close());

  const customer = { userId: `user-${randomUUID()}`, email: 'seen@example.com', name: 'Seen By Stripe' };
  const charge = (provider: ReturnType<typeof createStripeProvider>, saveForLater: boolean) =>
    provider.charge({
      orderId: `order-${randomUUID()}`,
      amount: { amount: 1999, currency: 'USD' },
      paymentToken: stripeTestToken('4242424242424242'),
      customer,
      idempotencyKey: randomUUID(),
      saveForLater,
      returnUrl: 'https://shop.example/order/result',
    });

  it('keeps one customer per user and tags every payment with its order', async () => {
    const provider = createStripeProvider({ secretKey, webhookSecret, apiBase: api.url });
    const first = await charge(provider, true);
    const second = await charge(provider, true);
    if (first.status !== 'succeeded' || second.status !== 'succeeded') throw new Error('expected successes');
    expect(second.savedMethod!.customerId).toBe(first.savedMethod!.customerId);
    const intent = api.intents().find((candidate) => candidate.id === first.paymentId)!;
    expect(intent).toMatchObject({ currency: 'usd', setup_future_usage: 'off_session', metadata: { userId: customer.userId, orderId: expect.any(String) } });
  });

  it('says nothing about saving when the customer did not ask', async () => {
    const provider = createStripeProvider({ secretKey, webhookSecret, apiBase: api.url });
    const result = await charge(provider, false);
    const intent = api.intents().find((candidate) => candidate.id === result.paymentId)!;
    expect(intent.setup_future_usage).toBeNull();
  });

  it('refunds through the Refunds API, whole or in part, tagged with our order and refund', async () => {
    const provider = createStripeProvider({ secretKey, webhookSecret, apiBase: api.url });
    const whole = await charge(provider, false);
    const part = await charge(provider, false);
    if (whole.status !== 'succeeded' || part.status !== 'succeeded') throw new Error('expected successes');

    const full = await provider.refund({ paymentId: whole.paymentId, amount: { amount: 1999, currency: 'USD' }, idempotencyKey: 'refund:r-full', metadata: { orderId: 'o-full', refundId: 'r-full' } });
    const partial = await provider.refund({ paymentId: part.paymentId, amount: { amount: 500, currency: 'USD' }, idempotencyKey: 'refund:r-part', metadata: { orderId: 'o-part', refundId: 'r-part' } });

    expect(full).toEqual({ refundId: expect.stringMatching(/^re_/), status: 'succeeded', amount: { amount: 1999, currency: 'USD' } });
    expect(partial).toEqual({ refundId: expect.stringMatching(/^re_/), status: 'succeeded', amount: { amount: 500, currency: 'USD' } });
    expect(api.refunds().find((refund) => refund.id === full.refundId)).toMatchObject({ payment_intent: whole.paymentId, amount: 1999, metadata: { orderId: 'o-full', refundId: 'r-full' } });
    expect(api.refunds().find((refund) => refund.id === partial.refundId)).toMatchObject({ payment_intent: part.paymentId, amount: 500, metadata: { orderId: 'o-part', refundId: 'r-part' } });
  });

  it("turns Stripe's refusal of a refund already made into a conflict, and one over what is left into an invalid amount", async () => {
    const provider = createStripeProvider({ secretKey, webhookSecret, apiBase: api.url });
    const paid = await charge(provider, false);
    if (paid.status !== 'succeeded') throw new Error('expected a success');
    const refund = (cents: number) => provider.refund({ paymentId: paid.paymentId, amount: { amount: cents, currency: 'USD' }, idempotencyKey: randomUUID(), metadata: { orderId: 'o', refundId: randomUUID() } });

    await refund(1000);
    await expect(refund(1000)).rejects.toMatchObject({ code: 422, fields: { amount: expect.any(String) } });
    await refund(999);
    await expect(refund(1)).rejects.toThrow(/charge_already_refunded/);
    await expect(refund(1)).rejects.toBeInstanceOf(Conflict);
  });

  it('stops at a wrong secret key instead of reporting a decline', async () => {
    const provider = createStripeProvider({ secretKey: 'sk_test_wrong', webhookSecret, apiBase: api.url, maxNetworkRetries: 0 });
    await expect(charge(provider, false)).rejects.toMatchObject({ type: 'StripeAuthenticationError' });
  });

  it('the stand-in reads nested brackets the way Stripe does', () => {
    expect(parseStripeForm('a=1&card[token]=tok_visa&metadata[orderId]=o%5B1%5D&list[0]=x&list[1]=y')).toEqual({
      a: '1',
      card: { token: 'tok_visa' },
      metadata: { orderId: 'o[1]' },
      list: { 0: 'x', 1: 'y' },
    });
  });
});
