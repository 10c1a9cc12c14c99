import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStripeProvider } from '../src/payment/index.ts';
import { parseStripeForm, startStripeApiServer, stripeTestToken, type StripeApiServer } from './fixtures/stripe-api-server.ts';
import { paymentContract } from './payment.contract.ts';

const secretKey = 'sk_test_cliffhanger';
const webhookSecret = 'whsec_stripe_test_secret';

paymentContract('stripe (the real SDK against a local stand-in of its API)', async () => {
  const api = await startStripeApiServer({ secretKey });
  return {
    provider: createStripeProvider({ secretKey, webhookSecret, apiBase: api.url }),
    tokenize: async (card) => stripeTestToken(card),
    async authenticate(actionUrl, passed) {
      const response = await fetch(`${actionUrl}/${passed ? 'complete' : 'fail'}`, { method: 'POST', redirect: 'manual' });
      expect(response.status).toBe(303);
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
