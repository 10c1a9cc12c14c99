import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule } from '@cliffhanger/catalog';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';
import { paymentModule } from '../src/index.ts';
import { signWebhook } from '../src/providers/index.ts';
import { cards } from './fixture.ts';

const MEDIA_SECRET = 'payment-site-test-media-secret-0123456789';
// The sandbox signs its webhooks with a key it derives from MEDIA_SECRET (src/providers/index.ts).
const webhookSecret = `whsec_${createHmac('sha256', MEDIA_SECRET).update('cliffhanger sandbox webhook signing').digest('base64url')}`;

let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule, paymentModule], env: { MEDIA_SECRET } });
});
afterAll(() => site.close());

/** What the card form does: card data to the sandbox's tokenizer, never to /api. */
async function tokenize(number: string): Promise<string> {
  const response = await fetch(`${site.url}/sandbox/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' }, email: 'ada@example.com' }),
  });
  const answer = (await response.json()) as { id: string };
  expect(answer.id).toMatch(/^tok_/);
  return answer.id;
}

async function order(token: string, planId: string): Promise<string> {
  const answer = await site.call('POST', '/api/payment/order', { token, body: { planId } });
  expect(answer.code).toBe(200);
  return answer.data.id;
}

async function pay(token: string, orderId: string, card: string, key: string = randomUUID()) {
  const body = { orderId, paymentToken: await tokenize(card), email: 'ada@example.com', firstName: 'Ada', lastName: 'Viewer' };
  return site.call('POST', '/api/payment/pay', { token, body, headers: { 'idempotency-key': key } });
}

const webhook = (raw: string, signature: string) =>
  fetch(`${site.url}/api/webhook/payment/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: raw });

/** The provider's signed word that the payment behind `actionUrl` (a challenge or approval page) succeeded. */
function paidWebhook(actionUrl: string, orderId: string) {
  const raw = JSON.stringify({ id: `evt_${randomUUID()}`, object: 'event', type: 'payment_intent.succeeded', data: { object: { id: actionUrl.split('/').at(-1), object: 'payment_intent', metadata: { orderId } } } });
  return webhook(raw, signWebhook(raw, webhookSecret));
}

describe("the card form's provider", () => {
  it('is the sandbox: GET /api/payment/config names its tokenizer, which takes a card without a user', async () => {
    const config = await site.call('GET', '/api/payment/config');
    expect(config).toMatchObject({ status: 200, code: 200 });
    expect(config.data).toEqual({ provider: 'sandbox', tokenUrl: '/sandbox/v1/tokens' });

    const response = await fetch(new URL(config.data.tokenUrl, site.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: cards.visa, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: expect.stringMatching(/^tok_/), card: { last4: '4242' } });
  });
});

describe('buying coins', () => {
  it('a guest orders, tokenizes at the sandbox, pays, and GET /api/user shows the coins', async () => {
    const token = await site.guest();
    const plans = await site.call('GET', '/api/plan', { token });
    expect(plans.data.map((plan: { id: string }) => plan.id)).toContain('coins-first');
    const orderId = await order(token, 'coins-500');
    const key = randomUUID();

    const paid = await pay(token, orderId, cards.visa, key);
    expect(paid).toMatchObject({ status: 200, code: 200, data: { orderId, status: 'succeeded' } });

    expect((await site.call('GET', '/api/user', { token })).data).toMatchObject({ coins: 550, bonusCoins: 50 });
    const payments = await site.call('GET', '/api/payment', { token });
    expect(payments.data).toMatchObject({ page: 1, size: 20, hasMore: false, subscription: null, items: [{ id: orderId, planId: 'coins-500', status: 'succeeded', price: { amount: 499, currency: 'USD' } }] });
    expect((await site.call('GET', '/api/plan', { token })).data.map((plan: { id: string }) => plan.id)).not.toContain('coins-first');
  });

  it('answers 401 without a user, 422 without an Idempotency-Key, and a declined card as a failed result', async () => {
    expect((await site.call('POST', '/api/payment/order', { body: { planId: 'coins-100' } })).code).toBe(401);
    const token = await site.guest();
    const orderId = await order(token, 'coins-100');
    const body = { orderId, paymentToken: await tokenize(cards.visa), email: 'ada@example.com', firstName: 'Ada', lastName: 'Viewer' };
    expect(await site.call('POST', '/api/payment/pay', { token, body })).toMatchObject({ code: 422, data: { fields: { 'Idempotency-Key': expect.any(String) } } });
    expect(await site.call('POST', '/api/payment/pay', { token, body, headers: { 'idempotency-key': 'short' } })).toMatchObject({ code: 422 });
    expect(await site.call('POST', '/api/payment/pay', { token, body: { ...body, email: 'nope' }, headers: { 'idempotency-key': randomUUID() } })).toMatchObject({
      code: 422,
      data: { fields: { email: 'Please enter a valid email' } },
    });

    expect(await pay(token, orderId, cards.declined)).toMatchObject({ status: 200, code: 200, data: { orderId, status: 'failed', message: 'Your card was declined.' } });
    expect((await site.call('GET', '/api/user', { token })).data.coins).toBe(0);
  });
});

describe('3-D Secure taken in the page', () => {
  it('POST /api/payment/complete settles the payment once the challenge passed, without waiting for the webhook', async () => {
    expect((await site.call('POST', '/api/payment/complete', { body: { orderId: 'any' } })).code).toBe(401);
    const token = await site.guest();
    expect(await site.call('POST', '/api/payment/complete', { token, body: {} })).toMatchObject({ code: 422, data: { fields: { orderId: expect.any(String) } } });
    const orderId = await order(token, 'coins-500');
    const waiting = await pay(token, orderId, cards.authenticateOnce);
    expect(waiting.data).toMatchObject({ orderId, status: 'requires_action', clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/) });

    // What Stripe.js's handleNextAction does with the client secret, at the sandbox.
    const clientSecret = waiting.data.clientSecret as string;
    const challenge = await fetch(`${site.url}/sandbox/v1/payment_intents/${clientSecret.split('_secret_')[0]}/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_secret: clientSecret, passed: true }),
    });
    expect(challenge.status).toBe(200);

    expect(await site.call('POST', '/api/payment/complete', { token, body: { orderId } })).toMatchObject({ status: 200, code: 200, data: { orderId, status: 'succeeded' } });
    expect((await site.call('GET', '/api/user', { token })).data.coins).toBe(550);
    expect((await site.call('POST', '/api/payment/complete', { token: await site.guest(), body: { orderId } })).code).toBe(404);
  });
});

describe('the first-purchase offer', () => {
  it('two offer orders, one through 3-D Secure and one through PayPal, completed together: the offer once, the other at the regular rate', async () => {
    const token = await site.guest();
    const [byCard, byPaypal] = [await order(token, 'coins-first'), await order(token, 'coins-first')];
    const challenge = (await pay(token, byCard, cards.authenticateOnce)).data.actionUrl as string;
    const approval = (await site.call('POST', '/api/payment/paypal', { token, body: { orderId: byPaypal } })).data.approveUrl as string;

    const finished = await Promise.all([`${challenge}/complete`, `${approval}/approve`].map((page) => fetch(`${site.url}${page}`, { method: 'POST', redirect: 'manual' })));
    expect(finished.map((page) => page.status)).toEqual([303, 303]);

    // Both successes reach the webhook at once.
    const paid = await Promise.all([paidWebhook(challenge, byCard), paidWebhook(approval, byPaypal)]);
    expect(paid.map((answer) => answer.status)).toEqual([200, 200]);

    const { data } = await site.call('GET', '/api/payment', { token });
    expect(data.items.map((item: { status: string }) => item.status)).toEqual(['succeeded', 'succeeded']);
    expect((await site.call('GET', '/api/user', { token })).data).toMatchObject({ coins: 500 + 100 + 201, bonusCoins: 100 });
  });
});

describe('the provider webhook', () => {
  it('is verified on the raw bytes it was signed over, refused with HTTP 400 otherwise, and applied once', async () => {
    const token = await site.guest();
    const orderId = await order(token, 'coins-100');
    const waiting = await pay(token, orderId, cards.authenticateOnce);
    expect(waiting.data).toMatchObject({ status: 'requires_action', actionUrl: expect.stringMatching(/\/sandbox\/v1\/challenge\/pi_/) });

    const challenge = await fetch(`${site.url}${waiting.data.actionUrl}/complete`, { method: 'POST', redirect: 'manual' });
    expect(challenge.status).toBe(303);
    expect(challenge.headers.get('location')).toMatch(new RegExp(`^${site.url}/order/result\\?orderId=${orderId}&`));

    const paymentId = waiting.data.actionUrl.split('/').at(-1);
    // Pretty-printed on purpose: a body parsed and serialised again would no longer match its signature.
    const raw = JSON.stringify({ id: `evt_${randomUUID()}`, object: 'event', type: 'payment_intent.succeeded', data: { object: { id: paymentId, object: 'payment_intent', metadata: { orderId } } } }, null, 2);
    const forged = await webhook(raw, signWebhook(raw, 'whsec_notTheSandboxSecret'));
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ code: 400, message: expect.any(String) });
    const stale = await webhook(raw, signWebhook(raw, webhookSecret, Math.floor(Date.now() / 1000) - 301));
    expect(stale.status).toBe(400);
    expect((await site.call('GET', '/api/payment', { token })).data.items[0].status).toBe('created');

    for (let delivery = 0; delivery < 3; delivery++) {
      const answer = await webhook(raw, signWebhook(raw, webhookSecret));
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ code: 200, message: 'ok', data: { received: true } });
    }
    expect((await site.call('GET', '/api/payment', { token })).data.items[0].status).toBe('succeeded');
    expect((await site.call('GET', '/api/user', { token })).data.coins).toBe(100);
  });

  it('a canceled PayPal flow cancels the order and redirects to the result page', async () => {
    const token = await site.guest();
    const orderId = await order(token, 'coins-100');
    const { data } = await site.call('POST', '/api/payment/paypal', { token, body: { orderId } });
    expect(data.approveUrl).toMatch(/\/sandbox\/paypal\/pi_/);
    const page = await fetch(`${site.url}${data.approveUrl}/cancel`, { method: 'POST', redirect: 'manual' });
    expect(page.headers.get('location')).toBe(`${site.url}/api/webhook/payment/paypal-cancel?orderId=${orderId}`);

    const back = await fetch(page.headers.get('location')!, { redirect: 'manual' });
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(`/order/result?orderId=${orderId}&status=canceled`);
    expect((await site.call('GET', '/api/payment', { token })).data.items[0].status).toBe('canceled');
  });
});

describe('VIP', () => {
  it('paying a VIP plan shows in User.vip; cancel keeps it until renewsAt; resume undoes the cancel', async () => {
    const token = await site.guest();
    const orderId = await order(token, 'vip-monthly');
    expect((await pay(token, orderId, cards.visa)).data.status).toBe('succeeded');

    const { data: user } = await site.call('GET', '/api/user', { token });
    expect(user.vip).toMatchObject({ planId: 'vip-monthly', cancelAtPeriodEnd: false });
    const canceled = await site.call('POST', '/api/payment/cancel', { token, body: {} });
    expect(canceled.data).toEqual({ planId: 'vip-monthly', status: 'active', renewsAt: user.vip.renewsAt, cancelAtPeriodEnd: true });
    expect((await site.call('GET', '/api/user', { token })).data.vip).toMatchObject({ cancelAtPeriodEnd: true });
    expect((await site.call('POST', '/api/payment/resume', { token, body: {} })).data).toMatchObject({ cancelAtPeriodEnd: false });
    expect((await site.call('POST', '/api/payment/resume', { token, body: {} })).code).toBe(409);
    expect((await site.call('GET', '/api/payment', { token })).data.subscription).toMatchObject({ planId: 'vip-monthly', status: 'active' });

    const stranger = await site.guest();
    expect((await site.call('POST', '/api/payment/cancel', { token: stranger, body: {} })).code).toBe(404);
  });

  it('paid through PayPal, which keeps no card, shows as ending at its period end; resume answers 409', async () => {
    const token = await site.guest();
    const orderId = await order(token, 'vip-weekly');
    const { data } = await site.call('POST', '/api/payment/paypal', { token, body: { orderId } });
    expect((await fetch(`${site.url}${data.approveUrl}/approve`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await paidWebhook(data.approveUrl, orderId)).status).toBe(200);
    const { subscription } = (await site.call('GET', '/api/payment', { token })).data;

    expect(subscription).toMatchObject({ planId: 'vip-weekly', status: 'active', cancelAtPeriodEnd: true });
    expect((await site.call('GET', '/api/user', { token })).data.vip).toEqual({ planId: 'vip-weekly', renewsAt: subscription.renewsAt, cancelAtPeriodEnd: true });
    expect(await site.call('POST', '/api/payment/resume', { token, body: {} })).toMatchObject({ status: 200, code: 409 });
  });
});

describe('the admin API', () => {
  it('answers 401 without the admin token or a session, 403 with a wrong token', async () => {
    expect((await site.call('GET', '/api/admin/plans')).code).toBe(401);
    expect((await site.call('PUT', '/api/admin/plans/coins-100', { body: { title: 'x' }, headers: { authorization: 'Bearer wrong-token-0123456789' } })).code).toBe(403);
    expect((await site.call('POST', '/api/admin/orders/any/refund', { body: {} })).code).toBe(401);
  });

  it('changes a plan for new orders, and refunds an order with its coins clawed back', async () => {
    expect((await site.admin('GET', '/api/admin/plans')).data.find((plan: { id: string }) => plan.id === 'coins-100')).toMatchObject({ active: true, position: 1 });
    const changed = await site.admin('PUT', '/api/admin/plans/coins-100', { body: { price: { amount: 79 }, bonusCoins: 10 } });
    expect(changed.data).toMatchObject({ id: 'coins-100', price: { amount: 79, currency: 'USD' }, coins: 100, bonusCoins: 10 });
    expect((await site.admin('PUT', '/api/admin/plans/coins-100', { body: { price: { amount: 10 } } })).code).toBe(422);
    expect((await site.admin('PUT', '/api/admin/plans/coins-100', { body: { unknown: 1 } })).code).toBe(422);

    const token = await site.guest();
    const orderId = await order(token, 'coins-100');
    expect((await site.call('GET', '/api/payment', { token })).data.items[0].price.amount).toBe(79);
    await pay(token, orderId, cards.visa);
    expect((await site.call('GET', '/api/user', { token })).data.coins).toBe(110);

    const refunded = await site.admin('POST', `/api/admin/orders/${orderId}/refund`, { body: { reason: 'test' } });
    expect(refunded.data).toMatchObject({ id: orderId, status: 'refunded' });
    expect((await site.call('GET', '/api/user', { token })).data.coins).toBe(0);
    await site.admin('PUT', '/api/admin/plans/coins-100', { body: { price: { amount: 99 }, bonusCoins: 0 } });
  });
});
