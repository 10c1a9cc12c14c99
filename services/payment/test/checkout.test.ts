import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '@cliffhanger/platform';
import { WebhookSignatureError } from '../src/providers/index.ts';
import { cards, openPayments, type PaymentsSite } from './fixture.ts';

let site: PaymentsSite;
beforeAll(async () => {
  site = await openPayments();
});
afterAll(() => site.close());

const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);

describe('paying an order', () => {
  it('a pay call replayed 20 times at once and its webhook delivered 3 times credit once', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-500');
    const input = { orderId: order.id, paymentToken: await site.tokenize(cards.visa), email: 'ada@example.com', firstName: 'Ada', lastName: 'Viewer' };
    const options = { idempotencyKey: `key-${randomUUID()}`, origin: 'https://shop.example' };

    const answers = await Promise.all(Array.from({ length: 20 }, () => site.payments.pay(userId, input, options)));

    expect(answers).toEqual(Array.from({ length: 20 }, () => ({ orderId: order.id, status: 'succeeded' })));
    const { payment_id: paymentId } = await site.orderRow(order.id);
    const event = site.webhook('payment_intent.succeeded', paymentId!, order.id);
    await Promise.all([1, 2, 3].map(() => site.payments.receiveWebhook(event.raw, event.signature)));
    // A second event about the same payment (Stripe may send one per retry of its own) changes nothing either.
    const again = site.webhook('payment_intent.succeeded', paymentId!, order.id);
    await site.payments.receiveWebhook(again.raw, again.signature);

    expect(await site.chargesOf(order.id)).toBe(1);
    expect(site.unlock.creditCallsOf(order.id)).toBe(1);
    expect(site.unlock.credits.get(order.id)).toMatchObject({ userId, coins: 500, bonusCoins: 50 });
    expect(await site.eventsOf('payment.succeeded', userId)).toHaveLength(1);
    expect(await site.orderRow(order.id)).toMatchObject({ status: 'succeeded', unlock_synced_at: expect.anything() });
  });

  it('the same Idempotency-Key with another body answers 409 and charges nothing', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-100');
    const key = `key-${randomUUID()}`;
    expect(await site.pay(userId, order.id, cards.declined, key)).toMatchObject({ status: 'failed' });

    const refusal = await failureOf(site.pay(userId, order.id, cards.visa, key));
    expect(refusal).toBeInstanceOf(Conflict);
    expect(await site.chargesOf(order.id)).toBe(1);
    expect((await site.orderRow(order.id)).status).toBe('failed');
  });

  it.each([
    [cards.declined, 'card_declined', 'Your card was declined.'],
    [cards.insufficientFunds, 'insufficient_funds', 'Your card has insufficient funds.'],
    [cards.incorrectCvc, 'incorrect_cvc', "Your card's security code is incorrect."],
  ])('a card %s fails with a readable message; the order can be paid again with a new key', async (card, reason, message) => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-1000');

    expect(await site.pay(userId, order.id, card)).toEqual({ orderId: order.id, status: 'failed', message });
    expect((await site.orderRow(order.id)).status).toBe('failed');
    expect((await site.eventsOf('payment.failed', userId)).map((event) => event.data)).toEqual([{ orderId: order.id, reason }]);

    expect(await site.pay(userId, order.id, cards.visa)).toEqual({ orderId: order.id, status: 'succeeded' });
    expect(site.unlock.balanceOf(userId)).toBe(1150);
  });

  it('a card that asks for authentication waits, then settles once when the challenge is completed', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-2000');
    const input = { orderId: order.id, paymentToken: await site.tokenize(cards.authenticateOnce), email: 'ada@example.com', firstName: 'Ada', lastName: 'Viewer' };
    const first = { idempotencyKey: `key-${randomUUID()}`, origin: 'https://shop.example' };

    const waiting = await site.payments.pay(userId, input, first);
    expect(waiting).toEqual({
      orderId: order.id,
      status: 'requires_action',
      clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/),
      actionUrl: expect.stringMatching(/^\/sandbox\/v1\/challenge\/pi_/),
    });
    expect(site.unlock.balanceOf(userId)).toBe(0);
    // Paying again meanwhile answers the same challenge instead of charging a second time.
    expect(await site.pay(userId, order.id, cards.visa)).toEqual(waiting);

    const paymentId = waiting.actionUrl!.split('/').at(-1)!;
    expect(await site.sandbox.finishChallenge(paymentId, true)).toBe(`https://shop.example/order/result?orderId=${order.id}&payment_intent=${paymentId}&redirect_status=succeeded`);
    const event = site.webhook('payment_intent.succeeded', paymentId, order.id);
    await site.payments.receiveWebhook(event.raw, event.signature);
    await site.payments.receiveWebhook(event.raw, event.signature);
    expect(await site.pay(userId, order.id, cards.visa)).toEqual({ orderId: order.id, status: 'succeeded' });
    // A replay of the first call still answers what that call answered.
    expect(await site.payments.pay(userId, input, first)).toEqual(waiting);

    expect(await site.chargesOf(order.id)).toBe(1);
    expect(site.unlock.creditCallsOf(order.id)).toBe(1);
    expect(site.unlock.balanceOf(userId)).toBe(2400);
    expect(await site.eventsOf('payment.succeeded', userId)).toHaveLength(1);
  });

  it('a failed challenge reported by webhook fails the waiting order, once', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-100');
    const waiting = await site.pay(userId, order.id, cards.authenticateOnce);
    const paymentId = waiting.actionUrl!.split('/').at(-1)!;
    await site.sandbox.finishChallenge(paymentId, false);

    const event = site.webhook('payment_intent.payment_failed', paymentId, order.id, { intent: { last_payment_error: { code: 'payment_intent_authentication_failure' } } });
    await site.payments.receiveWebhook(event.raw, event.signature);
    await site.payments.receiveWebhook(event.raw, event.signature);

    expect((await site.orderRow(order.id)).status).toBe('failed');
    expect((await site.eventsOf('payment.failed', userId)).map((row) => row.data)).toEqual([{ orderId: order.id, reason: 'authentication_failed' }]);
  });

  it('a call that died after charging is finished by its replay, without a second charge', async () => {
    let hang = true;
    const crashing = await openPayments({
      provider: (sandbox) => ({
        ...sandbox,
        // The first charge reaches the provider, then its process dies: the answer never comes back.
        charge: async (input) => {
          const result = await sandbox.charge(input);
          if (!hang) return result;
          hang = false;
          return new Promise(() => {});
        },
      }),
    });
    try {
      const { userId, context } = crashing.buyer();
      const order = await crashing.payments.createOrder(context, userId, 'coins-500');
      const input = { orderId: order.id, paymentToken: await crashing.tokenize(cards.visa), email: 'ada@example.com', firstName: 'Ada', lastName: 'Viewer' };
      const options = { idempotencyKey: `key-${randomUUID()}`, origin: '' };
      void crashing.payments.pay(userId, input, options);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await crashing.chargesOf(order.id)).toBe(1);

      crashing.clock.advance(2 * 60_000);
      expect(await crashing.payments.pay(userId, input, options)).toEqual({ orderId: order.id, status: 'succeeded' });
      expect(await crashing.chargesOf(order.id)).toBe(1);
      expect(crashing.unlock.balanceOf(userId)).toBe(550);
    } finally {
      await crashing.close();
    }
  });

  it('an order of another user, or none, is not found; a paid order answers without charging', async () => {
    const { userId, context } = site.buyer();
    const other = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-100');
    expect(await failureOf(site.pay(other.userId, order.id, cards.visa))).toBeInstanceOf(NotFound);
    expect(await failureOf(site.pay(userId, 'no-such-order', cards.visa))).toBeInstanceOf(NotFound);
    expect(await failureOf(site.payments.createOrder(context, userId, 'no-such-plan'))).toBeInstanceOf(NotFound);

    await site.pay(userId, order.id, cards.visa);
    expect(await site.pay(userId, order.id, cards.visa)).toEqual({ orderId: order.id, status: 'succeeded' });
    expect(await site.chargesOf(order.id)).toBe(1);
  });
});

describe("completing a payment after the page's 3-D Secure challenge", () => {
  /** A coin order paid with the card that asks for authentication: its order and the client secret the page gets. */
  async function challenged(planId = 'coins-2000') {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, planId);
    const waiting = await site.pay(userId, order.id, cards.authenticateOnce);
    const clientSecret = waiting.clientSecret!;
    return { userId, orderId: order.id, clientSecret, paymentId: clientSecret.split('_secret_')[0]! };
  }

  it('passed: settles the order at once, before the webhook, which then changes nothing; asking again answers the same', async () => {
    const { userId, orderId, clientSecret, paymentId } = await challenged();
    // Not yet authenticated: still the same challenge, nothing settled.
    expect(await site.payments.completePayment(userId, orderId)).toMatchObject({ orderId, status: 'requires_action', clientSecret });
    expect(site.unlock.balanceOf(userId)).toBe(0);

    expect(await site.sandbox.authenticateInPage(paymentId, clientSecret, true)).toMatchObject({ status: 'succeeded' });
    const answers = await Promise.all([1, 2, 3].map(() => site.payments.completePayment(userId, orderId)));
    expect(answers).toEqual([1, 2, 3].map(() => ({ orderId, status: 'succeeded' })));
    expect(await site.orderRow(orderId)).toMatchObject({ status: 'succeeded', unlock_synced_at: expect.anything() });
    const event = site.webhook('payment_intent.succeeded', paymentId, orderId);
    await site.payments.receiveWebhook(event.raw, event.signature);
    expect(await site.payments.completePayment(userId, orderId)).toEqual({ orderId, status: 'succeeded' });

    expect(await site.chargesOf(orderId)).toBe(1);
    expect(site.unlock.creditCallsOf(orderId)).toBe(1);
    expect(site.unlock.balanceOf(userId)).toBe(2400);
    expect(await site.eventsOf('payment.succeeded', userId)).toHaveLength(1);
  });

  it('failed: fails the order with a readable message and one payment.failed, and the order can be paid with another card', async () => {
    const { userId, orderId, clientSecret, paymentId } = await challenged('coins-100');
    await site.sandbox.authenticateInPage(paymentId, clientSecret, false);

    const message = 'We could not verify your card. Please try again or use another card.';
    expect(await site.payments.completePayment(userId, orderId)).toEqual({ orderId, status: 'failed', message });
    expect(await site.payments.completePayment(userId, orderId)).toEqual({ orderId, status: 'failed', message });
    const event = site.webhook('payment_intent.payment_failed', paymentId, orderId, { intent: { last_payment_error: { code: 'payment_intent_authentication_failure' } } });
    await site.payments.receiveWebhook(event.raw, event.signature);
    expect((await site.orderRow(orderId)).status).toBe('failed');
    expect((await site.eventsOf('payment.failed', userId)).map((row) => row.data)).toEqual([{ orderId, reason: 'authentication_failed' }]);

    expect(await site.pay(userId, orderId, cards.visa)).toEqual({ orderId, status: 'succeeded' });
    expect(site.unlock.balanceOf(userId)).toBe(100);
  });

  it("is refused for another user's order (404) and for an order never paid (409)", async () => {
    const { userId, orderId } = await challenged('coins-100');
    expect(await failureOf(site.payments.completePayment(site.buyer().userId, orderId))).toBeInstanceOf(NotFound);
    expect(await failureOf(site.payments.completePayment(userId, 'no-such-order'))).toBeInstanceOf(NotFound);
    const { userId: buyer, context } = site.buyer();
    const unpaid = await site.payments.createOrder(context, buyer, 'coins-100');
    expect(await failureOf(site.payments.completePayment(buyer, unpaid.id))).toBeInstanceOf(Conflict);
    expect((await site.orderRow(unpaid.id)).status).toBe('created');
  });
});

describe('webhooks', () => {
  it('a forged webhook and a 301-second-old one are refused, and change nothing', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-100');
    const forged = site.webhook('payment_intent.succeeded', 'pi_forged', order.id, { secret: 'whsec_notOurs0123456789' });
    const stale = site.webhook('payment_intent.succeeded', 'pi_stale', order.id, { ageSeconds: 301 });
    const recent = site.webhook('payment_intent.succeeded', 'pi_recent', order.id, { ageSeconds: 290 });

    expect(await failureOf(site.payments.receiveWebhook(forged.raw, forged.signature))).toBeInstanceOf(WebhookSignatureError);
    expect(await failureOf(site.payments.receiveWebhook(stale.raw, stale.signature))).toBeInstanceOf(WebhookSignatureError);
    expect(await failureOf(site.payments.receiveWebhook(forged.raw, undefined))).toBeInstanceOf(WebhookSignatureError);
    // The right signature over other bytes (a body parsed and serialised again) is refused too.
    expect(await failureOf(site.payments.receiveWebhook(Buffer.from(JSON.stringify(JSON.parse(recent.body), null, 1)), recent.signature))).toBeInstanceOf(WebhookSignatureError);
    expect((await site.orderRow(order.id)).status).toBe('created');

    await site.payments.receiveWebhook(recent.raw, recent.signature);
    expect((await site.orderRow(order.id)).status).toBe('succeeded');
  });

  it('an event about an order that is not ours is acknowledged and ignored', async () => {
    const event = site.webhook('payment_intent.succeeded', 'pi_elsewhere', 'not-our-order');
    await expect(site.payments.receiveWebhook(event.raw, event.signature)).resolves.toBeUndefined();
  });
});

describe('the PayPal-style redirect', () => {
  it('hands out an approval page; approving settles by webhook, canceling cancels the order', async () => {
    const { userId, context } = site.buyer();
    const approved = await site.payments.createOrder(context, userId, 'coins-500');
    const { approveUrl } = await site.payments.startRedirect(userId, approved.id, 'https://shop.example');
    expect(approveUrl).toMatch(/^\/sandbox\/paypal\/pi_/);
    const paymentId = approveUrl.split('/').at(-1)!;
    expect(await site.sandbox.finishRedirect(paymentId, true)).toMatch(/^https:\/\/shop\.example\/order\/result\?orderId=/);
    const event = site.webhook('payment_intent.succeeded', paymentId, approved.id);
    await site.payments.receiveWebhook(event.raw, event.signature);
    expect((await site.orderRow(approved.id)).status).toBe('succeeded');

    const left = await site.payments.createOrder(context, userId, 'coins-100');
    const redirect = await site.payments.startRedirect(userId, left.id, 'https://shop.example');
    expect(await site.sandbox.finishRedirect(redirect.approveUrl.split('/').at(-1)!, false)).toBe(
      `https://shop.example/api/webhook/payment/paypal-cancel?orderId=${left.id}`,
    );
    await site.payments.cancelRedirect(left.id);
    await site.payments.cancelRedirect(approved.id);
    expect((await site.orderRow(left.id)).status).toBe('canceled');
    expect((await site.orderRow(approved.id)).status).toBe('succeeded');
    expect(await failureOf(site.pay(userId, left.id, cards.visa))).toBeInstanceOf(Conflict);
  });
});
