import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '@cliffhanger/platform';
import { outboxEvents } from '@cliffhanger/platform/testing';
import { byToken, cards, DAY_MS, openPayments, type PaymentsSite } from './fixture.ts';

// Operators create and retire plans (issue 25); every change is audited in its own transaction.
let site: PaymentsSite;
beforeAll(async () => {
  site = await openPayments();
});
afterAll(() => site.close());

const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);

/** The audit events of `action` on `target` written to the outbox, as `{ before, after }`. */
async function auditsOf(action: string, target: string) {
  const events = await outboxEvents(site.database.db, 'admin.audited');
  return events
    .map((event) => event.data as { actor: string; action: string; target: string; beforeJson?: string; afterJson?: string })
    .filter((data) => data.action === action && data.target === target)
    .map((data) => ({ actor: data.actor, before: data.beforeJson ? JSON.parse(data.beforeJson) : null, after: data.afterJson ? JSON.parse(data.afterJson) : null }));
}

describe('retiring a plan', () => {
  it('stops listing and selling it, while a live subscription on it still renews', async () => {
    site.clock.time = new Date('2026-03-01T10:00:00Z');
    const plan = await site.payments.createPlan({ id: 'vip-fortnight', kind: 'vip', title: 'VIP fortnight', priceAmount: 899, periodDays: 14 }, byToken);
    expect(plan).toMatchObject({ id: 'vip-fortnight', kind: 'vip', periodDays: 14, active: true, retiredAt: null });
    expect((await site.payments.listPlans(null)).map((listed) => listed.id)).toContain('vip-fortnight');

    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'vip-fortnight');
    const paid = await site.payments.pay(
      userId,
      { orderId: order.id, paymentToken: await site.tokenize(cards.visa), email: 'ada@example.com', firstName: 'Ada', lastName: 'Viewer', language: 'en' },
      { idempotencyKey: `key-${order.id}`, origin: 'https://shop.example' },
    );
    expect(paid.status).toBe('succeeded');

    const retired = await site.payments.retirePlan('vip-fortnight', byToken);
    expect(retired).toMatchObject({ active: false, retiredAt: expect.any(String) });
    expect((await site.payments.listPlans(null)).map((listed) => listed.id)).not.toContain('vip-fortnight');
    const other = site.buyer();
    expect(await failureOf(site.payments.createOrder(other.context, other.userId, 'vip-fortnight'))).toBeInstanceOf(NotFound);
    expect(await failureOf(site.payments.updatePlan('vip-fortnight', { active: true }, byToken))).toBeInstanceOf(Conflict);
    expect(await failureOf(site.payments.retirePlan('vip-fortnight', byToken))).toBeInstanceOf(Conflict);
    expect(await failureOf(site.payments.retirePlan('no-such-plan', byToken))).toBeInstanceOf(NotFound);

    const renewsAt = new Date((await site.payments.subscriptionOf(userId))!.renewsAt);
    expect(renewsAt.getTime() - site.clock.time.getTime()).toBe(14 * DAY_MS);
    site.clock.time = renewsAt;
    expect(await site.payments.renewDueSubscriptions(renewsAt)).toMatchObject({ renewed: 1 });
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ planId: 'vip-fortnight', status: 'active' });

    expect(await auditsOf('plan.create', 'plan:vip-fortnight')).toEqual([{ actor: 'token', before: null, after: expect.objectContaining({ id: 'vip-fortnight', active: true }) }]);
    expect(await auditsOf('plan.retire', 'plan:vip-fortnight')).toEqual([
      { actor: 'token', before: expect.objectContaining({ active: true, retiredAt: null }), after: expect.objectContaining({ active: false, retiredAt: retired.retiredAt }) },
    ]);
  });
});

describe('the audit of money and plans', () => {
  it('a plan change and a refund are audited with the state before and after; a refused one is not', async () => {
    await site.payments.updatePlan('coins-500', { title: 'Big pack' }, byToken);
    const [change] = await auditsOf('plan.update', 'plan:coins-500');
    expect(change).toMatchObject({ actor: 'token', before: { title: '500 coins' }, after: { title: 'Big pack' } });
    await site.payments.updatePlan('coins-500', { title: '500 coins' }, byToken);

    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'coins-100');
    await site.pay(userId, order.id, cards.visa);
    await site.payments.refundOrder(order.id, null, 'asked by the viewer', byToken);
    expect(await failureOf(site.payments.refundOrder(order.id, null, 'again', byToken))).toBeInstanceOf(Conflict);
    expect(await auditsOf('order.refund', `order:${order.id}`)).toEqual([
      { actor: 'token', before: { status: 'succeeded', refunded: 0 }, after: { refundId: expect.any(String), amount: 99, reason: 'asked by the viewer' } },
    ]);
  });
});
