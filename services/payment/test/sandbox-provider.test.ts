import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import express from 'express';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, queryRows, type Database } from '@cliffhanger/platform';
import { eventually, openMigratedDatabase, openTestDatabase, realDatabaseUrl, silentLogger, testConfig } from '@cliffhanger/platform/testing';
import { createPaymentProvider, createSandboxProvider, createSandboxRouter, type SandboxOptions, type SandboxPaymentProvider } from '../src/providers/index.ts';
import { paymentContract } from './provider.contract.ts';

const webhookSecret = 'whsec_sandbox_test_secret';

interface Delivery {
  signature: string;
  body: string;
}

/** The sandbox behind a real HTTP server on 127.0.0.1, with a webhook receiver beside it. */
async function openSandboxSite() {
  const database = await openMigratedDatabase();
  const deliveries: Delivery[] = [];
  let answerWebhook = (_delivery: Delivery) => 200;
  const app = express();
  app.post('/api/webhook/payment/stripe', express.raw({ type: () => true }), (req, res) => {
    const delivery = { signature: String(req.get('stripe-signature')), body: (req.body as Buffer).toString('utf8') };
    deliveries.push(delivery);
    res.status(answerWebhook(delivery)).json({ received: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const makeProvider = (options: Partial<SandboxOptions> = {}) => {
    const made = createSandboxProvider(database, {
      publicUrl: origin,
      webhookUrl: `${origin}/api/webhook/payment/stripe`,
      webhookSecret,
      logger: silentLogger,
      webhookDelaysMs: [0, 100, 100],
      // Each provider sends what it records and retries it; none looks at the table for what another left but where a test asks.
      webhookPollMs: 3_600_000,
      ...options,
    });
    made.start();
    return made;
  };
  const provider = makeProvider();
  app.use(createSandboxRouter(provider));

  const post = (path: string, body: string, contentType = 'application/json') =>
    fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return {
    database,
    provider,
    makeProvider,
    origin,
    deliveries,
    answerWebhooksWith(answer: (delivery: Delivery) => number) {
      answerWebhook = answer;
    },
    post,
    /** A button press on a sandbox page: where it sends the browser. */
    async press(url: string) {
      const response = await fetch(url, { method: 'POST', redirect: 'manual' });
      expect(response.status).toBe(303);
      return response.headers.get('location')!;
    },
    async tokenize(card: string, extra: Record<string, unknown> = {}) {
      const response = await post('/sandbox/v1/tokens', JSON.stringify({ card: { number: card, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123', ...extra } }));
      const body = (await response.json()) as { id: string };
      if (response.status !== 200) throw new Error(`tokenizing failed: ${JSON.stringify(body)}`);
      return body.id;
    },
    async confirmationToken(card: string) {
      const response = await post(
        '/sandbox/v1/confirmation_tokens',
        JSON.stringify({ payment_method_data: { type: 'card', card: { number: card, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } } }),
      );
      const body = (await response.json()) as { id: string };
      if (response.status !== 200) throw new Error(`making a confirmation token failed: ${JSON.stringify(body)}`);
      return body.id;
    },
    async close() {
      await provider.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await database.close();
    },
  };
}

const onWhat = realDatabaseUrl ? 'PostgreSQL' : 'PGlite';

paymentContract(`sandbox on ${onWhat}`, async () => {
  const site = await openSandboxSite();
  return {
    provider: site.provider,
    tokenize: (card) => site.confirmationToken(card),
    legacyToken: (card) => site.tokenize(card),
    async authenticate(action, passed) {
      const response = await site.post(`/sandbox/v1/payment_intents/${action.paymentId}/authenticate`, JSON.stringify({ client_secret: action.clientSecret, passed }));
      expect(response.status).toBe(200);
    },
    countPayments: async (orderId) =>
      (await queryRows(site.database.db, sql`select id from sandbox_payments.payments where order_id = ${orderId}`)).length,
    webhookSecret,
    close: () => site.close(),
  };
});

describe(`sandbox payment pages on ${onWhat}`, () => {
  let site: Awaited<ReturnType<typeof openSandboxSite>>;
  let provider: SandboxPaymentProvider;
  beforeAll(async () => {
    site = await openSandboxSite();
    provider = site.provider;
  });
  afterAll(() => site?.close());

  const nextYear = new Date().getFullYear() + 1;
  const amount = { amount: 499, currency: 'usd' };
  const customer = { userId: 'user-pages', email: 'pages@example.com', name: 'Page Viewer' };
  const webhooksFor = (orderId: string) =>
    site.deliveries.filter((delivery) => (JSON.parse(delivery.body) as Stripe.Event & { data: { object: { metadata: Record<string, string> } } }).data.object.metadata.orderId === orderId);

  async function charge(card: string, orderId = `order-${randomUUID()}`, by: SandboxPaymentProvider = provider) {
    const result = await by.charge({
      orderId,
      amount,
      paymentToken: await site.tokenize(card),
      customer,
      idempotencyKey: randomUUID(),
      saveForLater: true,
      returnUrl: `https://shop.example/order/result?orderId=${orderId}`,
    });
    return { orderId, result };
  }

  it('tokenizes a good card and keeps only its brand, last4, expiry and outcome', async () => {
    const response = await site.post('/sandbox/v1/tokens', JSON.stringify({ card: { number: '4242 4242 4242 4242', exp_month: '7', exp_year: String(nextYear), cvc: '314' }, email: 'a@example.com' }));
    expect(response.status).toBe(200);
    const token = (await response.json()) as { id: string };
    expect(token).toEqual({ id: expect.stringMatching(/^tok_\w+$/), card: { brand: 'Visa', last4: '4242', exp_month: 7, exp_year: nextYear } });
    const [row] = await queryRows<Record<string, unknown>>(site.database.db, sql`select * from sandbox_payments.tokens where id = ${token.id}`);
    // Value by value: the token's random id or a timestamp may hold the digits 314 anywhere.
    const values = Object.values(row!).map((value) => (value instanceof Date ? value.toISOString() : String(value)));
    expect(values.filter((value) => value.includes('4242424242424242') || value.includes('a@example'))).toEqual([]);
    expect(values).not.toContain('314');
    expect(row).toMatchObject({ brand: 'Visa', last4: '4242', exp_month: 7, exp_year: nextYear, outcome: 'succeeds' });
  });

  const thisYear = new Date().getUTCFullYear();
  it.each([
    ['a number failing Luhn', { number: '4242424242424241' }, 'incorrect_number'],
    ['letters in the number', { number: '4242abcd42424242' }, 'invalid_number'],
    ['a number as a JSON number', { number: 4242424242424242 }, 'invalid_number'],
    ['a month of 13', { exp_month: 13 }, 'invalid_expiry_month'],
    ['a month as an object', { exp_month: { $gt: 0 } }, 'invalid_expiry_month'],
    ['a year gone by', { exp_year: thisYear - 1 }, 'invalid_expiry_year'],
    ['a year too far', { exp_year: thisYear + 60 }, 'invalid_expiry_year'],
    ['a month gone by this year', { exp_month: 1, exp_year: new Date().getUTCMonth() === 0 ? thisYear - 1 : thisYear }, /invalid_expiry_(month|year)/],
    ['a two-digit CVC', { cvc: '12' }, 'invalid_cvc'],
    ['a CVC as a number', { cvc: 123 }, 'invalid_cvc'],
    ['a three-digit CVC on an Amex', { number: '378282246310005', cvc: '123' }, 'invalid_cvc'],
  ])('refuses %s with HTTP 402 and Stripe’s code', async (_name, change, code) => {
    const card = { number: '4242424242424242', exp_month: 12, exp_year: nextYear, cvc: '123', ...change };
    const response = await site.post('/sandbox/v1/tokens', JSON.stringify({ card }));
    expect(response.status).toBe(402);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toMatch(code);
    expect(body.error.message).toEqual(expect.any(String));
  });

  it('never answers hostile input with a 5xx', async () => {
    const long = '4'.repeat(100_000);
    const bodies: [string, string?][] = [
      [''],
      ['null'],
      ['"a string"'],
      ['[1,2,3]'],
      ['{"card":null}'],
      ['{"card":[]}'],
      ['{"card":"4242424242424242"}'],
      ['{"__proto__":{"card":{"number":"4242424242424242"}}}'],
      ['{"card":{"__proto__":{"number":"4242424242424242"},"exp_month":1}}'],
      ['{"card":{"number":"4242424242424242","exp_month":1e309,"exp_year":-1,"cvc":"123"}}'],
      ['{"card":{"number":"4242424242424242","exp_month":1.5,"exp_year":"20 26","cvc":"12 3"}}'],
      ['{"card":{"number":"\\u0000\\u0000","exp_month":"\\ud800","exp_year":[2030],"cvc":{}}}'],
      [`{"card":{"number":"${long.slice(0, 3000)}"}}`],
      [`{"card":{"number":"${long}"}}`],
      ['{"card": {"number": "4242424242424242"', 'application/json'],
      ['card[number]=4242424242424242&card[cvc]=123', 'application/x-www-form-urlencoded'],
      ['<xml/>', 'text/xml'],
      ['{"email":{"$ne":null},"card":{"number":"4242424242424242","exp_month":1,"exp_year":2099,"cvc":"123"}}'],
      ['{"email":"x","card":{"number":"4242424242424242","exp_month":12,"exp_year":"99999","cvc":"123"}}'],
    ];
    for (const [body, contentType] of bodies) {
      const response = await site.post('/sandbox/v1/tokens', body, contentType);
      await response.arrayBuffer();
      expect([400, 402, 413], `${response.status} for ${body.slice(0, 80)}`).toContain(response.status);
    }
  });

  it('takes a token once: a second charge with it fails', async () => {
    const token = await site.tokenize('4242424242424242');
    const charge = (idempotencyKey: string) =>
      provider.charge({ orderId: `order-${randomUUID()}`, amount, paymentToken: token, customer, idempotencyKey, saveForLater: false, returnUrl: '/r' });
    expect((await charge(randomUUID())).status).toBe('succeeded');
    expect(await charge(randomUUID())).toMatchObject({ status: 'failed', reason: 'token_already_used', hardDecline: true });
    expect(await provider.charge({ orderId: 'o', amount, paymentToken: 'tok_made_up', customer, idempotencyKey: randomUUID(), saveForLater: false, returnUrl: '/r' }))
      .toMatchObject({ status: 'failed', reason: 'resource_missing' });
  });

  it('sends every settled charge as a Stripe-signed webhook the payment service can verify', async () => {
    const { orderId, result } = await charge('4000000000009995');
    const [delivery] = await eventually(() => (webhooksFor(orderId).length ? webhooksFor(orderId) : null), 10_000, 'the webhook');
    expect(delivery!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const event = Stripe.webhooks.constructEvent(delivery!.body, delivery!.signature, webhookSecret, 300);
    expect(event).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'payment_intent.payment_failed', data: { object: { id: result.paymentId, metadata: { orderId } } } });
    expect(provider.parseWebhook(Buffer.from(delivery!.body), delivery!.signature)).toEqual({
      id: event.id,
      type: 'payment.failed',
      paymentId: result.paymentId,
      orderId,
      reason: 'insufficient_funds',
    });
  });

  it('shows a self-contained challenge page whose Complete button settles, notifies once and returns', async () => {
    const { orderId, result } = await charge('4000002500003155');
    if (result.status !== 'requires_action') throw new Error(JSON.stringify(result));
    const page = await fetch(result.actionUrl!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/<script|<link|<img|<iframe|src=|url\(/i);
    expect(html.match(/<form method="post"/g)).toHaveLength(2);
    expect(html).toContain('$4.99');
    expect(html).toContain('Visa ending in 3155');

    const location = await site.press(`${result.actionUrl}/complete`);
    expect(location).toBe(`https://shop.example/order/result?orderId=${orderId}&payment_intent=${result.paymentId}&redirect_status=succeeded`);
    const settled = await provider.retrieve(result.paymentId);
    expect(settled).toMatchObject({ status: 'succeeded', savedMethod: { customerId: expect.any(String) } });
    await eventually(() => webhooksFor(orderId).length === 1, 10_000, 'the webhook');

    // Pressing again, or Fail after Complete, changes nothing and sends nothing.
    expect(await site.press(`${result.actionUrl}/fail`)).toContain('redirect_status=succeeded');
    expect((await fetch(result.actionUrl!, { redirect: 'manual' })).status).toBe(303);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(webhooksFor(orderId)).toHaveLength(1);
    expect(await provider.retrieve(result.paymentId)).toEqual(settled);
  });

  it("makes a confirmation token in Stripe's shape, keeping only the card's brand, last4 and expiry", async () => {
    const response = await site.post(
      '/sandbox/v1/confirmation_tokens',
      JSON.stringify({ payment_method_data: { type: 'card', card: { number: '4242 4242 4242 4242', exp_month: 7, exp_year: nextYear, cvc: '314' }, billing_details: { email: 'a@example.com', name: 'Ada B' } } }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^ctoken_\w+$/),
      object: 'confirmation_token',
      payment_method_preview: { type: 'card', card: { brand: 'Visa', last4: '4242', exp_month: 7, exp_year: nextYear }, billing_details: { email: 'a@example.com', name: 'Ada B' } },
    });
    const refused = await site.post('/sandbox/v1/confirmation_tokens', JSON.stringify({ payment_method_data: { type: 'card', card: { number: '4242424242424241', exp_month: 7, exp_year: nextYear, cvc: '314' } } }));
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ error: { code: 'incorrect_number' } });
  });

  it('settles a 3-D Secure challenge taken in the page with the client secret, once, and notifies once', async () => {
    const { orderId, result } = await charge('4000002500003155');
    if (result.status !== 'requires_action') throw new Error(JSON.stringify(result));
    const intentUrl = `${site.origin}/sandbox/v1/payment_intents/${result.paymentId}`;
    expect(await (await fetch(`${intentUrl}?client_secret=${result.clientSecret}`)).json()).toMatchObject({ status: 'requires_action', next_action: { type: 'use_stripe_sdk' }, amount: 499 });
    // Another payment's secret, or none, opens nothing.
    expect((await fetch(`${intentUrl}?client_secret=${result.paymentId}_secret_0000`)).status).toBe(404);
    expect((await site.post(`/sandbox/v1/payment_intents/${result.paymentId}/authenticate`, JSON.stringify({ passed: true }))).status).toBe(404);

    const passed = await site.post(`/sandbox/v1/payment_intents/${result.paymentId}/authenticate`, JSON.stringify({ client_secret: result.clientSecret, passed: true }));
    expect(await passed.json()).toMatchObject({ id: result.paymentId, status: 'succeeded', next_action: null });
    await eventually(() => webhooksFor(orderId).length === 1, 10_000, 'the webhook');
    const failedLate = await site.post(`/sandbox/v1/payment_intents/${result.paymentId}/authenticate`, JSON.stringify({ client_secret: result.clientSecret, passed: false }));
    expect(await failedLate.json()).toMatchObject({ status: 'succeeded' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(webhooksFor(orderId)).toHaveLength(1);
  });

  it('answers 404 for pages of payments it does not have', async () => {
    for (const path of ['/sandbox/v1/challenge/pi_nope', '/sandbox/paypal/pi_nope']) {
      expect((await fetch(`${site.origin}${path}`)).status).toBe(404);
    }
    expect((await fetch(`${site.origin}/sandbox/v1/challenge/pi_nope/complete`, { method: 'POST', redirect: 'manual' })).status).toBe(404);
  });

  it('approves a PayPal-style payment on its page, notifies and returns', async () => {
    const orderId = `order-${randomUUID()}`;
    const { paymentId, approveUrl } = await provider.createRedirect({
      orderId,
      amount,
      idempotencyKey: randomUUID(),
      returnUrl: `/order/result?orderId=${orderId}`,
      cancelUrl: `/api/webhook/payment/paypal-cancel?orderId=${orderId}`,
    });
    expect(approveUrl).toBe(`${site.origin}/sandbox/paypal/${paymentId}`);
    const html = await (await fetch(approveUrl)).text();
    expect(html).toMatch(/Approve and pay[\s\S]*Cancel and return/);
    expect(await site.press(`${approveUrl}/approve`)).toBe(`/order/result?orderId=${orderId}&payment_intent=${paymentId}&redirect_status=succeeded`);
    expect(await provider.retrieve(paymentId)).toEqual({ status: 'succeeded', paymentId, savedMethod: null });
    const [delivery] = await eventually(() => (webhooksFor(orderId).length ? webhooksFor(orderId) : null), 10_000, 'the webhook');
    expect(provider.parseWebhook(Buffer.from(delivery!.body), delivery!.signature)).toMatchObject({ type: 'payment.succeeded', paymentId, orderId });
  });

  it('sends a canceled PayPal-style payment to its cancel address, with no webhook', async () => {
    const orderId = `order-${randomUUID()}`;
    const cancelUrl = `/api/webhook/payment/paypal-cancel?orderId=${orderId}`;
    const { paymentId, approveUrl } = await provider.createRedirect({ orderId, amount, idempotencyKey: randomUUID(), returnUrl: '/done', cancelUrl });
    expect(await site.press(`${approveUrl}/cancel`)).toBe(cancelUrl);
    expect(await site.press(`${approveUrl}/approve`)).toBe(cancelUrl);
    expect(await provider.retrieve(paymentId)).toMatchObject({ status: 'failed', reason: 'canceled', hardDecline: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(webhooksFor(orderId)).toHaveLength(0);
  });

  it('retries a webhook the receiver refused, signed afresh', async () => {
    let refusals = 0;
    site.answerWebhooksWith(() => (refusals++ < 2 ? 503 : 200));
    try {
      const { orderId } = await charge('4242424242424242');
      await eventually(() => webhooksFor(orderId).length === 3, 10_000, 'three attempts');
      const bodies = new Set(webhooksFor(orderId).map((delivery) => delivery.body));
      expect(bodies.size).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(webhooksFor(orderId)).toHaveLength(3);
    } finally {
      site.answerWebhooksWith(() => 200);
    }
  });

  it('sends a webhook the process that took the payment never delivered from the process started after it, the same event signed afresh, once', async () => {
    // The receiver is down; the process that takes the payment would try again in an hour, and dies first.
    const orderId = `order-${randomUUID()}`;
    site.answerWebhooksWith((delivery) => (delivery.body.includes(orderId) ? 503 : 200));
    const first = site.makeProvider({ webhookDelaysMs: [0, 3_600_000] });
    const { result } = await charge('4242424242424242', orderId, first);
    const retriedLater = sql`select 1 from sandbox_payments.webhooks where payload like ${`%${orderId}%`} and next_attempt_at > now() + interval '30 minutes'`;
    await eventually(async () => webhooksFor(orderId).length === 1 && (await queryRows(site.database.db, retriedLater)).length === 1, 10_000, 'the first attempt');
    await first.stop();

    // The hour passes; the receiver is back, and so is the site, as another process.
    site.answerWebhooksWith(() => 200);
    await site.database.db.execute(sql`update sandbox_payments.webhooks set next_attempt_at = next_attempt_at - interval '1 hour' where payload like ${`%${orderId}%`}`);
    const next = site.makeProvider({ webhookPollMs: 50 });
    try {
      await eventually(() => webhooksFor(orderId).length === 2, 10_000, 'the webhook after the restart');
      const [refused, delivered] = webhooksFor(orderId).map((delivery) => Stripe.webhooks.constructEvent(delivery.body, delivery.signature, webhookSecret, 300));
      expect(delivered).toEqual(refused);
      expect(delivered).toMatchObject({ type: 'payment_intent.succeeded', data: { object: { id: result.paymentId, metadata: { orderId } } } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(webhooksFor(orderId)).toHaveLength(2);
      expect(await queryRows(site.database.db, sql`select attempts, delivered_at is not null as delivered from sandbox_payments.webhooks where payload like ${`%${orderId}%`}`)).toEqual([{ attempts: 2, delivered: true }]);
    } finally {
      await next.stop();
    }
  });

  it('lets a test make a saved card decline its renewals, softly or hard', async () => {
    const { result } = await charge('4242424242424242');
    if (result.status !== 'succeeded') throw new Error(JSON.stringify(result));
    const savedMethod = result.savedMethod!;
    const renew = () => provider.chargeSaved({ orderId: `order-${randomUUID()}`, amount, savedMethod, idempotencyKey: randomUUID() });
    await provider.setSavedCardBehaviour(savedMethod.paymentMethodId, '4000000000009995');
    expect(await renew()).toMatchObject({ status: 'failed', reason: 'insufficient_funds', hardDecline: false });
    await provider.setSavedCardBehaviour(savedMethod.paymentMethodId, '4000000000000002');
    expect(await renew()).toMatchObject({ status: 'failed', reason: 'card_declined', hardDecline: false });
    await provider.setSavedCardBehaviour(savedMethod.paymentMethodId, '4000000000009979');
    expect(await renew()).toMatchObject({ status: 'failed', reason: 'stolen_card', hardDecline: true });
    await expect(provider.setSavedCardBehaviour('pm_nope', '4242424242424242')).rejects.toThrow('No such payment method');
  });

  it('loses nothing in a restart: a challenge started before it completes after it', async () => {
    const { result } = await charge('4000002500003155');
    if (result.status !== 'requires_action') throw new Error(JSON.stringify(result));
    const restarted = site.makeProvider();
    try {
      expect(await restarted.retrieve(result.paymentId)).toEqual(result);
      await restarted.finishChallenge(result.paymentId, true);
      expect((await restarted.retrieve(result.paymentId)).status).toBe('succeeded');
    } finally {
      await restarted.stop();
    }
  });
});

describe('choosing the payment provider', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database?.close());
  const stripeKeys = { STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_PUBLISHABLE_KEY: 'pk_test_abc' };
  const choose = (env: Record<string, string>) => createPaymentProvider(testConfig(env), database, { logger: silentLogger, webhookUrl: null });

  it('runs the sandbox, with its pages, when no Stripe key is set', async () => {
    const setup = choose({ PUBLIC_URL: 'http://shop.example/' });
    expect(setup.provider.kind).toBe('sandbox');
    expect(setup.routes).not.toBeNull();
    expect(setup.browser).toEqual({ provider: 'sandbox', tokenUrl: 'http://shop.example/sandbox/v1/tokens' });
    await setup.stop();
  });

  it('runs Stripe, and never the sandbox or its pages, when a key is set', () => {
    const setup = choose(stripeKeys);
    expect(setup.provider.kind).toBe('stripe');
    expect(setup.routes).toBeNull();
    expect(setup.browser).toEqual({ provider: 'stripe', publishableKey: 'pk_test_abc' });
    expect(() => choose({ ...stripeKeys, PAYMENT_PROVIDER: 'sandbox' })).toThrow(ConfigError);
  });

  it('refuses the sandbox in production unless asked for by name', () => {
    // Production also requires mail and the site's address (config); those set, the sandbox is what is refused.
    const production = { NODE_ENV: 'production', SMTP_URL: 'smtp://mail.example:25', PUBLIC_URL: 'https://cliffhanger.example' };
    expect(() => choose(production)).toThrow(/STRIPE_SECRET_KEY/);
    expect(choose({ ...production, PAYMENT_PROVIDER: 'sandbox' }).provider.kind).toBe('sandbox');
  });

  it('refuses Stripe without its keys', () => {
    expect(() => choose({ PAYMENT_PROVIDER: 'stripe' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => choose({ STRIPE_SECRET_KEY: 'sk_test_abc' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
  });
});
