import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, Invalid, NotFound } from '@cliffhanger/platform';
import { byToken, cards, DAY_MS, openPayments, type PaymentsSite } from './fixture.ts';

let site: PaymentsSite;
beforeAll(async () => {
  site = await openPayments();
});
afterAll(() => site.close());

const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);

describe('plans', () => {
  it('are seeded with coin packs, a first-purchase offer and three VIP periods, in their order', async () => {
    const plans = await site.payments.listPlans(null);
    expect(plans.map((plan) => plan.id)).toEqual(['coins-first', 'coins-100', 'coins-500', 'coins-1000', 'coins-2000', 'vip-weekly', 'vip-monthly', 'vip-yearly']);
    expect(plans[0]).toEqual({ id: 'coins-first', kind: 'coins', title: 'First purchase offer', price: { amount: 199, currency: 'USD' }, coins: 500, bonusCoins: 100, firstPurchaseOnly: true });
    expect(plans.find((plan) => plan.id === 'vip-monthly')).toEqual({ id: 'vip-monthly', kind: 'vip', title: 'VIP monthly', price: { amount: 1499, currency: 'USD' }, periodDays: 30 });
    expect(plans.filter((plan) => plan.kind === 'vip').map((plan) => plan.periodDays)).toEqual([7, 30, 365]);
  });

  it('the first-purchase offer disappears after the first success, and cannot be ordered or paid again', async () => {
    const { userId, context } = site.buyer();
    expect((await site.payments.listPlans(userId)).map((plan) => plan.id)).toContain('coins-first');
    const offer = await site.payments.createOrder(context, userId, 'coins-first');
    const second = await site.payments.createOrder(context, userId, 'coins-first');
    expect(offer.price).toEqual({ amount: 199, currency: 'USD' });

    expect(await site.pay(userId, offer.id, cards.visa)).toMatchObject({ status: 'succeeded' });

    expect((await site.payments.listPlans(userId)).map((plan) => plan.id)).not.toContain('coins-first');
    expect((await site.payments.listPlans(null)).map((plan) => plan.id)).toContain('coins-first');
    expect(await failureOf(site.payments.createOrder(context, userId, 'coins-first'))).toBeInstanceOf(Conflict);
    expect(await failureOf(site.pay(userId, second.id, cards.visa))).toBeInstanceOf(Conflict);
    expect(await site.chargesOf(second.id)).toBe(0);
  });

  it('an operator change applies to new orders at once; orders placed before keep their terms', async () => {
    const { userId, context } = site.buyer();
    const before = await site.payments.createOrder(context, userId, 'coins-1000');

    const changed = await site.payments.updatePlan('coins-1000', { title: 'Spring pack', priceAmount: 799, bonusCoins: 300 }, byToken);
    expect(changed).toMatchObject({ id: 'coins-1000', title: 'Spring pack', price: { amount: 799, currency: 'USD' }, coins: 1000, bonusCoins: 300, active: true });
    const after = await site.payments.createOrder(context, userId, 'coins-1000');
    expect(after.price.amount).toBe(799);

    await site.pay(userId, before.id, cards.visa);
    await site.pay(userId, after.id, cards.visa);
    expect(site.unlock.credits.get(before.id)).toMatchObject({ coins: 1000, bonusCoins: 150 });
    expect(site.unlock.credits.get(after.id)).toMatchObject({ coins: 1000, bonusCoins: 300 });

    await site.payments.updatePlan('coins-1000', { active: false }, byToken);
    expect((await site.payments.listPlans(null)).map((plan) => plan.id)).not.toContain('coins-1000');
    expect((await site.payments.adminPlans()).find((plan) => plan.id === 'coins-1000')).toMatchObject({ active: false });
    expect(await failureOf(site.payments.createOrder(context, userId, 'coins-1000'))).toBeInstanceOf(NotFound);
    await site.payments.updatePlan('coins-1000', { title: '1,000 coins', priceAmount: 999, bonusCoins: 150, active: true }, byToken);

    expect(await failureOf(site.payments.updatePlan('vip-weekly', { coins: 10 }, byToken))).toBeInstanceOf(Invalid);
    expect(await failureOf(site.payments.updatePlan('coins-100', { periodDays: 10 }, byToken))).toBeInstanceOf(Invalid);
    expect(await failureOf(site.payments.updatePlan('no-such-plan', { title: 'x' }, byToken))).toBeInstanceOf(NotFound);
  });
});

describe('orders', () => {
  it('carry the attribution of the request that created them into every later event', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-500');
    await site.pay(userId, order.id, cards.declined);
    await site.pay(userId, order.id, cards.visa);

    const attribution = { referrerToken: 'ref-1', fbclid: 'fb-1', ttclid: null };
    expect(await site.eventsOf('order.created', userId)).toEqual([{ data: { orderId: order.id, planId: 'coins-500', price: { amount: 499, currency: 'USD' } }, attribution }]);
    expect(await site.eventsOf('payment.failed', userId)).toEqual([{ data: { orderId: order.id, reason: 'card_declined' }, attribution }]);
    expect(await site.eventsOf('payment.succeeded', userId)).toEqual([{ data: { orderId: order.id, paymentId: expect.stringMatching(/^pi_/), amount: { amount: 499, currency: 'USD' } }, attribution }]);
    expect(site.unlock.credits.get(order.id)!.context.attribution).toEqual(attribution);
  });

  it('a paid order mails a receipt with no card data', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-2000');
    await site.pay(userId, order.id, cards.visa);
    const mail = site.mails.find((sent) => sent.text.includes(order.id))!;
    expect(mail).toMatchObject({ to: 'ada@example.com', subject: 'Your Cliffhanger receipt: 2,000 coins' });
    expect(mail.text).toContain('$19.99');
    expect(mail.text).toContain('Coins: 2000 + 400 bonus coins');
    expect(mail.text).not.toMatch(/4242|tok_/);
  });

  it('a paid order the unlock service missed (down, or a crash after commit) is credited by the sweep, once', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-500');
    site.unlock.failNext(1);
    expect(await site.pay(userId, order.id, cards.visa)).toMatchObject({ status: 'succeeded' });
    expect(site.unlock.balanceOf(userId)).toBe(0);
    expect((await site.orderRow(order.id)).unlock_synced_at).toBeNull();

    await site.payments.runDueWork(site.clock.time);
    expect(site.unlock.balanceOf(userId)).toBe(0);
    site.clock.advance(61_000);
    await site.payments.runDueWork(site.clock.time);
    await site.payments.runDueWork(site.clock.time);
    expect(site.unlock.balanceOf(userId)).toBe(550);
    expect(site.unlock.creditCallsOf(order.id)).toBe(1);
  });

  it('a lost webhook is made up for: a payment left waiting is asked about and settled', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-100');
    const waiting = await site.pay(userId, order.id, cards.authenticateOnce);
    await site.sandbox.finishChallenge(waiting.actionUrl!.split('/').at(-1)!, true);
    site.clock.advance(3 * 60_000);
    await site.payments.runDueWork(site.clock.time);
    expect((await site.orderRow(order.id)).status).toBe('succeeded');
    expect(site.unlock.balanceOf(userId)).toBe(100);
  });

  it('are listed newest first, a page at a time, with the subscription', async () => {
    const { userId, context } = site.buyer();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await site.payments.createOrder(context, userId, 'coins-100')).id);
      site.clock.advance(1000);
    }
    const first = await site.payments.listPayments(userId, 1, 2);
    expect(first).toMatchObject({ page: 1, size: 2, hasMore: true, subscription: null });
    expect(first.items.map((order) => order.id)).toEqual([ids[2], ids[1]]);
    expect(first.items[0]).toEqual({ id: ids[2], planId: 'coins-100', price: { amount: 99, currency: 'USD' }, status: 'created', createdAt: expect.any(String) });
    expect((await site.payments.listPayments(userId, 2, 2)).items.map((order) => order.id)).toEqual([ids[0]]);
  });
});

describe('refunds', () => {
  it('claw back the coins of a refunded order, once', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-500');
    await site.pay(userId, order.id, cards.visa);
    expect(site.unlock.balanceOf(userId)).toBe(550);

    expect(await site.payments.refundOrder(order.id, null, 'asked by the viewer', byToken)).toMatchObject({
      id: order.id,
      status: 'refunded',
      refunded: { amount: 499, currency: 'USD' },
      reversed: { coinsTaken: 550, unlocksRevoked: 0, vipEnded: false },
    });
    expect(await failureOf(site.payments.refundOrder(order.id, null, 'again', byToken))).toBeInstanceOf(Conflict);
    expect(site.unlock.balanceOf(userId)).toBe(0);
    expect((await site.orderRow(order.id)).unlock_synced_at).not.toBeNull();

    const unpaid = await site.payments.createOrder(context, userId, 'coins-100');
    expect(await failureOf(site.payments.refundOrder(unpaid.id, null, 'why', byToken))).toBeInstanceOf(Conflict);
    expect(await failureOf(site.payments.refundOrder('no-such-order', null, 'why', byToken))).toBeInstanceOf(NotFound);
  });

  it('end the VIP a refunded order bought', async () => {
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'vip-weekly');
    await site.pay(userId, order.id, cards.visa);
    expect(site.unlock.vip.get(userId)).toMatchObject({ planId: 'vip-weekly', activeUntil: new Date(site.clock.time.getTime() + 7 * DAY_MS) });

    expect((await site.payments.refundOrder(order.id, null, 'asked', byToken)).reversed).toEqual({ coinsTaken: 0, unlocksRevoked: 0, vipEnded: true });
    expect(site.unlock.vip.has(userId)).toBe(false);
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ planId: 'vip-weekly', status: 'canceled' });
    expect(await site.eventsOf('subscription.canceled', userId)).toHaveLength(1);
  });
});
