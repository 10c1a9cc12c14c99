import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonthsOnDay } from '../src/billing.ts';
import { byToken, cards, DAY_MS, openPayments, type PaymentsSite } from './fixture.ts';

let site: PaymentsSite;
beforeAll(async () => {
  site = await openPayments();
});
afterAll(() => site.close());

/** The audit entries written for `userId`, before and after as the audit log stores them. */
async function auditsOf(userId: string) {
  const rows = await site.rows<{ data: { actor: string; action: string; beforeJson?: string; afterJson?: string } }>(
    sql`select data from platform.outbox where type = 'admin.audited' and data->>'target' = ${`user:${userId}`} order by id`,
  );
  return rows.map(({ data }) => ({ actor: data.actor, action: data.action, before: JSON.parse(data.beforeJson ?? 'null'), after: JSON.parse(data.afterJson ?? 'null') }));
}

async function subscribe(planId: string) {
  const { userId, context } = site.buyer();
  const order = await site.payments.createOrder(context, userId, planId);
  expect((await site.pay(userId, order.id, cards.visa)).status).toBe('succeeded');
  return userId;
}

const ordersOf = (userId: string) => site.rows<{ plan_id: string; status: string }>(sql`select plan_id, status from payment.orders where user_id = ${userId} order by created_at`);

describe('VIP days an operator grants (issue 25)', () => {
  it('start a VIP of their own for a user with none: free, never renewing, with its event and audit, ending when the days do', async () => {
    const { userId } = site.buyer();
    const start = site.clock.time;
    const granted = await site.payments.grantVipDays({ userId, days: 10, reason: 'The app was down all weekend' }, byToken);
    const renewsAt = addDays(start, 10).toISOString();
    expect(granted).toEqual({ days: 10, subscription: { planId: 'vip-granted', status: 'active', renewsAt, cancelAtPeriodEnd: true } });
    expect(site.unlock.vip.get(userId)).toEqual({ planId: 'vip-granted', activeUntil: new Date(renewsAt), cancelAtPeriodEnd: true });

    const [event] = await site.eventsOf('subscription.granted', userId);
    expect(event!.data).toEqual({ subscriptionId: expect.any(String), planId: 'vip-granted', renewsAt, cancelAtPeriodEnd: true, days: 10, started: true });
    expect(await auditsOf(userId)).toEqual([
      {
        actor: 'token',
        action: 'user.grant',
        before: { vip: null },
        after: { vip: { subscriptionId: event!.data.subscriptionId, planId: 'vip-granted', status: 'active', renewsAt }, grantedVipDays: 10, reason: 'The app was down all weekend' },
      },
    ]);
    // Not for sale, and nothing is ever charged for it.
    expect((await site.payments.listPlans(null)).map((plan) => plan.id)).not.toContain('vip-granted');
    site.clock.advance(10 * DAY_MS + 60_000);
    expect(await site.payments.renewDueSubscriptions(site.clock.time)).toMatchObject({ expired: 1, renewed: 0 });
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ planId: 'vip-granted', status: 'expired' });
    expect(site.unlock.vip.has(userId)).toBe(false);
    expect(await ordersOf(userId)).toEqual([]);
  });

  it("move a live VIP's renewal the days later: charged then, and a monthly plan renews on the new day of the month from then on", async () => {
    const userId = await subscribe('vip-monthly');
    const before = (await site.payments.subscriptionOf(userId))!;
    const moved = addDays(new Date(before.renewsAt), 5);
    const granted = await site.payments.grantVipDays({ userId, days: 5, reason: 'Support: lost a week to a bug' }, byToken);
    expect(granted.subscription).toEqual({ planId: 'vip-monthly', status: 'active', renewsAt: moved.toISOString(), cancelAtPeriodEnd: false });
    expect(site.unlock.vip.get(userId)?.activeUntil).toEqual(moved);
    expect((await auditsOf(userId)).at(-1)).toMatchObject({ before: { vip: { planId: 'vip-monthly', renewsAt: before.renewsAt } }, after: { vip: { renewsAt: moved.toISOString() }, grantedVipDays: 5 } });
    expect((await site.eventsOf('subscription.granted', userId)).map((event) => event.data)).toEqual([
      { subscriptionId: expect.any(String), planId: 'vip-monthly', renewsAt: moved.toISOString(), cancelAtPeriodEnd: false, days: 5, started: false },
    ]);

    // Nothing is due at the old date; at the new one the card pays a whole month, to the same day of the next month.
    site.clock.time = new Date(new Date(before.renewsAt).getTime() + 60_000);
    expect(await site.payments.renewDueSubscriptions(site.clock.time)).toMatchObject({ renewed: 0 });
    site.clock.time = moved;
    expect(await site.payments.renewDueSubscriptions(site.clock.time)).toMatchObject({ renewed: 1 });
    expect((await site.payments.subscriptionOf(userId))!.renewsAt).toBe(addMonthsOnDay(moved, 1, moved.getUTCDate()).toISOString());
    expect((await ordersOf(userId)).map((order) => order.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('are followed by a VIP bought while they last, which then renews by itself', async () => {
    const { userId, context } = site.buyer();
    const { subscription } = await site.payments.grantVipDays({ userId, days: 3, reason: 'Goodwill' }, byToken);
    const order = await site.payments.createOrder(context, userId, 'vip-weekly');
    expect((await site.pay(userId, order.id, cards.visa)).status).toBe('succeeded');
    expect(await site.payments.subscriptionOf(userId)).toEqual({
      planId: 'vip-weekly',
      status: 'active',
      renewsAt: addDays(new Date(subscription.renewsAt), 7).toISOString(),
      cancelAtPeriodEnd: false,
    });
  });
});
