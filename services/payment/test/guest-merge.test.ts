import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, createPostgresBus, type EventBus } from '@cliffhanger/platform';
import { eventually, silentLogger } from '@cliffhanger/platform/testing';
import { subscribePaymentConsumers } from '../src/events.ts';
import { addMonthsOnDay } from '../src/billing.ts';
import { cards, DAY_MS, openPayments, type PaymentsSite } from './fixture.ts';

// A guest who paid and then logs in to an account brings its orders and its VIP.
let site: PaymentsSite;
let bus: EventBus;
beforeAll(async () => {
  site = await openPayments();
  bus = createPostgresBus(site.database, silentLogger, { pollMs: 50 });
  subscribePaymentConsumers(bus, site.payments);
  await bus.start();
});
afterAll(async () => {
  await bus?.stop();
  await site?.close();
});
// Each test's subscriptions end with it, so the renewals of one never show in another's.
afterEach(async () => {
  await site.database.db.execute(sql`update payment.subscriptions set status = 'expired' where status in ('active', 'past_due')`);
});

const days = (n: number) => n * DAY_MS;

type Buyer = ReturnType<PaymentsSite['buyer']>;

/** `buyer` pays for `planId` with the sandbox's test card, at the site's clock. */
async function buy(buyer: Buyer, planId: string) {
  const order = await site.payments.createOrder(buyer.context, buyer.userId, planId);
  expect((await site.pay(buyer.userId, order.id, cards.visa)).status).toBe('succeeded');
  return order;
}

/** The user service's event for `guest` logging in to `member`, applied by the payment service's consumer. */
async function logIn(guest: Buyer, member: Buyer) {
  const event = await site.database.transaction((tx) => appendEvent(tx, member.context, 'user.logged_in', { mergedGuestId: guest.userId }, member.userId));
  bus.nudge();
  await eventually(
    async () => (await site.rows(sql`select 1 from platform.processed_events where consumer = 'payment.guest-merge' and event_id = ${event.id}`)).length > 0,
    20_000,
    'the login to be applied',
  );
  return event;
}

const subscriptionsOf = (userId: string) =>
  site.rows<{ id: string; plan_id: string; status: string; cancel_at_period_end: boolean; renews_at: string | Date; ended_at: string | Date | null }>(
    sql`select id, plan_id, status, cancel_at_period_end, renews_at, ended_at from payment.subscriptions where user_id = ${userId} order by started_at`,
  );
const iso = (value: string | Date | null) => value && new Date(value).toISOString();

describe('a guest logging in to an account', () => {
  it("gives the member the guest's orders and its VIP, which the member can cancel", async () => {
    const guest = site.buyer();
    const member = site.buyer();
    const coins = await buy(guest, 'coins-100');
    const vip = await buy(guest, 'vip-monthly');
    const renewsAt = addMonthsOnDay(site.clock.time, 1, site.clock.time.getUTCDate());

    await logIn(guest, member);

    const payments = await site.payments.listPayments(member.userId, 1, 20);
    expect(payments.items.map((order) => order.id).sort()).toEqual([coins.id, vip.id].sort());
    expect(payments.subscription).toEqual({ planId: 'vip-monthly', status: 'active', renewsAt: renewsAt.toISOString(), cancelAtPeriodEnd: false });
    expect(await site.payments.listPayments(guest.userId, 1, 20)).toMatchObject({ items: [], subscription: null });
    await eventually(() => site.unlock.vip.has(member.userId) && !site.unlock.vip.has(guest.userId), 10_000, 'VIP to follow');
    expect(site.unlock.vip.get(member.userId)).toEqual({ planId: 'vip-monthly', activeUntil: renewsAt, cancelAtPeriodEnd: false });
    expect((await site.eventsOf('purchases.merged', member.userId)).map((event) => event.data)).toEqual([
      { guestId: guest.userId, orders: 2, subscriptionId: expect.any(String), renewsAt: renewsAt.toISOString(), addedSeconds: 0 },
    ]);

    expect(await site.payments.cancelSubscription(member.userId)).toMatchObject({ planId: 'vip-monthly', cancelAtPeriodEnd: true });
    await expect(site.payments.cancelSubscription(guest.userId)).rejects.toMatchObject({ code: 404 });
  });

  it('tells the unlock service again of its paid orders, now under the member', async () => {
    const guest = site.buyer();
    const member = site.buyer();
    const coins = await buy(guest, 'coins-100');
    expect(site.unlock.creditCallsOf(coins.id)).toBe(1);

    await logIn(guest, member);
    expect((await site.orderRow(coins.id)).unlock_synced_at).toBeNull();
    site.clock.advance(2 * 60_000);
    await site.payments.runDueWork();

    expect(site.unlock.creditCallsOf(coins.id)).toBe(2);
    expect((await site.orderRow(coins.id)).unlock_synced_at).not.toBeNull();
  });

  it("with a live VIP on both sides keeps the member's renewing one, adds the guest's unused days to it, and never charges the guest's again", async () => {
    const member = site.buyer();
    const guest = site.buyer();
    const startedAt = site.clock.time.getTime();
    await buy(member, 'vip-monthly');
    site.clock.advance(days(2));
    await buy(guest, 'vip-weekly');
    site.clock.advance(days(1));

    await logIn(guest, member);

    // The weekly one had 6 of its 7 days left, added to the member's calendar month.
    const renewsAt = new Date(addMonthsOnDay(new Date(startedAt), 1, new Date(startedAt).getUTCDate()).getTime() + days(6));
    expect(await site.payments.subscriptionOf(member.userId)).toEqual({ planId: 'vip-monthly', status: 'active', renewsAt: renewsAt.toISOString(), cancelAtPeriodEnd: false });
    const [kept, ended] = await subscriptionsOf(member.userId);
    expect(ended).toMatchObject({ plan_id: 'vip-weekly', status: 'canceled', cancel_at_period_end: true });
    expect(iso(ended!.ended_at)).toBe(new Date(startedAt + days(9)).toISOString());
    expect((await site.eventsOf('purchases.merged', member.userId))[0]!.data).toEqual({
      guestId: guest.userId,
      orders: 1,
      subscriptionId: kept!.id,
      renewsAt: renewsAt.toISOString(),
      endedSubscriptionId: ended!.id,
      addedSeconds: 6 * 86_400,
    });
    await eventually(() => site.unlock.vip.get(member.userId)?.activeUntil.getTime() === renewsAt.getTime(), 10_000, 'the longer VIP');
    expect(site.unlock.vip.has(guest.userId)).toBe(false);

    // Past the weekly one's period end, then past the kept one's: one renewal, of the monthly plan.
    site.clock.time = new Date(startedAt + days(10));
    expect(await site.payments.renewDueSubscriptions()).toMatchObject({ renewed: 0, expired: 0 });
    site.clock.time = new Date(renewsAt.getTime() + 60_000);
    expect(await site.payments.renewDueSubscriptions()).toMatchObject({ renewed: 1 });
    const orders = await site.rows<{ plan_id: string; subscription_id: string }>(sql`select plan_id, subscription_id from payment.orders where user_id = ${member.userId} order by created_at`);
    expect(orders.map((order) => order.plan_id)).toEqual(['vip-monthly', 'vip-weekly', 'vip-monthly']);
    expect(orders.filter((order) => order.subscription_id === ended!.id)).toHaveLength(1);
    expect((await subscriptionsOf(member.userId)).filter((sub) => ['active', 'past_due'].includes(sub.status))).toHaveLength(1);
  });

  it("keeps the guest's renewing VIP when the member had canceled its own, adding the member's unused days", async () => {
    const member = site.buyer();
    const guest = site.buyer();
    const startedAt = site.clock.time.getTime();
    await buy(member, 'vip-monthly');
    await site.payments.cancelSubscription(member.userId);
    site.clock.advance(days(10));
    await buy(guest, 'vip-weekly');

    await logIn(guest, member);

    // The monthly one had the rest of its calendar month left (after 10 days), after the weekly one's 7.
    const monthLeft = addMonthsOnDay(new Date(startedAt), 1, new Date(startedAt).getUTCDate()).getTime() - (startedAt + days(10));
    expect(await site.payments.subscriptionOf(member.userId)).toEqual({
      planId: 'vip-weekly',
      status: 'active',
      renewsAt: new Date(startedAt + days(10 + 7) + monthLeft).toISOString(),
      cancelAtPeriodEnd: false,
    });
    expect((await subscriptionsOf(member.userId)).map((sub) => [sub.plan_id, sub.status])).toEqual([
      ['vip-monthly', 'canceled'],
      ['vip-weekly', 'active'],
    ]);
    expect(await site.payments.cancelSubscription(member.userId)).toMatchObject({ planId: 'vip-weekly', cancelAtPeriodEnd: true });
  });

  it('leaves one person one first-purchase offer when guest and member both bought it', async () => {
    const guest = site.buyer();
    const member = site.buyer();
    const own = await buy(member, 'coins-first');
    const guests = await buy(guest, 'coins-first');

    await logIn(guest, member);

    const offers = await site.rows<{ id: string; first_purchase_only: boolean }>(sql`select id, first_purchase_only from payment.orders where user_id = ${member.userId}`);
    expect(Object.fromEntries(offers.map((order) => [order.id, order.first_purchase_only]))).toEqual({ [own.id]: true, [guests.id]: false });
  });

  it('changes nothing when the same login is applied again', async () => {
    const guest = site.buyer();
    const member = site.buyer();
    await buy(guest, 'coins-100');
    await buy(guest, 'vip-weekly');
    await buy(member, 'vip-monthly');
    const event = await logIn(guest, member);
    const ordersOf = (userId: string) => site.rows(sql`select id, status, unlock_synced_at from payment.orders where user_id = ${userId} order by id`);
    const before = { orders: await ordersOf(member.userId), subscriptions: await subscriptionsOf(member.userId) };
    // The guest, still holding its old token, buys again: a replay is no new login.
    await site.payments.createOrder(guest.context, guest.userId, 'coins-100');

    for (let replay = 0; replay < 3; replay++) expect(await site.database.transaction((tx) => site.payments.mergeGuestPurchases(tx, event))).toBeNull();

    expect(await ordersOf(member.userId)).toEqual(before.orders);
    expect(await subscriptionsOf(member.userId)).toEqual(before.subscriptions);
    expect((await site.payments.listPayments(guest.userId, 1, 20)).items).toHaveLength(1);
    expect(await site.eventsOf('purchases.merged', member.userId)).toHaveLength(1);
    expect(await site.rows(sql`select event_id from payment.guest_merges where guest_id = ${guest.userId}`)).toEqual([{ event_id: event.id }]);
  });
});
