import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '@cliffhanger/platform';
import { addMonthsOnDay } from '../src/billing.ts';
import { cards, DAY_MS, openPayments, type PaymentsSite } from './fixture.ts';

let site: PaymentsSite;
beforeAll(async () => {
  site = await openPayments();
});
afterAll(() => site.close());
// Each test's subscriptions end with it, so the renewals of one never show in another's counts.
afterEach(async () => {
  await site.database.db.execute(sql`update payment.subscriptions set status = 'expired' where status in ('active', 'past_due')`);
});

const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);
const days = (n: number) => n * DAY_MS;

/** A new subscriber to `planId`, paid with `card` (authenticated when it asks), at the site's clock. */
async function subscribe(planId: string, card = cards.visa) {
  const { userId, context } = site.buyer();
  const order = await site.payments.createOrder(context, userId, planId);
  const answer = await site.pay(userId, order.id, card);
  if (answer.status === 'requires_action') {
    const paymentId = answer.actionUrl!.split('/').at(-1)!;
    await site.sandbox.finishChallenge(paymentId, true);
    const payment = await site.sandbox.retrieve(paymentId);
    if (payment.status !== 'succeeded') throw new Error(`authentication did not pass: ${payment.status}`);
    await site.payments.settleOrder(order.id, paymentId, payment.savedMethod);
  }
  return { userId, context, order, startedAt: site.clock.time };
}

/** The bank's view of a saved card changes (funds run out, come back): the sandbox's record of it. */
async function cardOf(userId: string, outcome: 'insufficient_funds' | 'card_declined' | 'stolen_card' | 'succeeds') {
  await site.database.db.execute(sql`
    update sandbox_payments.payment_methods set outcome = ${outcome}
     where customer_id = (select id from sandbox_payments.customers where user_id = ${userId})`);
}

/** Runs the minute's work at `at`. */
async function runAt(at: Date) {
  site.clock.time = at;
  return site.payments.renewDueSubscriptions(at);
}

const subscriptionEvents = async (userId: string) => {
  const types = ['subscription.started', 'subscription.renewed', 'subscription.past_due', 'subscription.canceled', 'subscription.expired'];
  const rows = await site.rows<{ type: string }>(sql`select type from platform.outbox where user_id = ${userId} and type like 'subscription.%' order by id`);
  return rows.map((row) => row.type).filter((type) => types.includes(type));
};

describe('renewals', () => {
  it('a year of monthly renewals charges the saved card twelve times, each its own order, on the same day of the month', async () => {
    const { userId, startedAt } = await subscribe('vip-monthly');
    const monthsOn = (months: number) => addMonthsOnDay(startedAt, months, startedAt.getUTCDate());
    expect(await site.payments.subscriptionOf(userId)).toEqual({ planId: 'vip-monthly', status: 'active', renewsAt: monthsOn(1).toISOString(), cancelAtPeriodEnd: false });

    for (let month = 1; month <= 12; month++) {
      const due = monthsOn(month);
      expect(await runAt(new Date(due.getTime() - 60_000))).toMatchObject({ renewed: 0 });
      expect(await runAt(new Date(due.getTime() + 60_000))).toMatchObject({ renewed: 1 });
      // Running again in the same minute (another replica, the next tick) charges nothing more.
      expect(await runAt(new Date(due.getTime() + 120_000))).toMatchObject({ renewed: 0 });
    }

    const renewsAt = monthsOn(13);
    expect(await site.payments.subscriptionOf(userId)).toEqual({ planId: 'vip-monthly', status: 'active', renewsAt: renewsAt.toISOString(), cancelAtPeriodEnd: false });
    expect(site.unlock.vip.get(userId)).toEqual({ planId: 'vip-monthly', activeUntil: renewsAt, cancelAtPeriodEnd: false });
    const orders = await site.rows<{ id: string; status: string; price_amount: number }>(
      sql`select id, status, price_amount from payment.orders where user_id = ${userId} order by created_at`,
    );
    expect(orders).toHaveLength(13);
    expect(orders.every((order) => order.status === 'succeeded' && order.price_amount === 1499)).toBe(true);
    for (const order of orders) expect(await site.chargesOf(order.id)).toBe(1);
    expect(await subscriptionEvents(userId)).toEqual(['subscription.started', ...Array.from({ length: 12 }, () => 'subscription.renewed')]);
  });

  it('a declining saved card goes past due, keeps VIP through the grace period, is tried 8 times over 14 days, then expires', async () => {
    const { userId, startedAt } = await subscribe('vip-weekly');
    const due = new Date(startedAt.getTime() + days(7));
    await cardOf(userId, 'insufficient_funds');

    expect(await runAt(due)).toMatchObject({ past_due: 1 });
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'past_due', renewsAt: due.toISOString() });
    expect(site.unlock.vip.get(userId)?.activeUntil).toEqual(new Date(due.getTime() + days(7)));
    for (const day of [1, 2, 4, 6, 8, 11, 14]) {
      const retry = new Date(due.getTime() + days(day));
      expect(await runAt(new Date(retry.getTime() - 60_000))).toMatchObject({ past_due: 0, expired: 0 });
      const outcome = await runAt(retry);
      expect(outcome).toMatchObject(day === 14 ? { expired: 1 } : { past_due: 1 });
    }

    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'expired' });
    expect(site.unlock.vip.has(userId)).toBe(false);
    expect(await subscriptionEvents(userId)).toEqual(['subscription.started', 'subscription.past_due', 'subscription.expired']);
    const failures = await site.eventsOf('payment.failed', userId);
    expect(failures.map((event) => event.data.reason)).toEqual(Array.from({ length: 8 }, () => 'insufficient_funds'));
    // One order for the period, charged eight times under eight keys.
    const renewal = await site.rows<{ id: string; status: string }>(sql`select id, status from payment.orders where user_id = ${userId} and period_start is not null`);
    expect(renewal).toEqual([{ id: expect.any(String), status: 'failed' }]);
    expect(await site.chargesOf(renewal[0]!.id)).toBe(8);
    expect(await runAt(new Date(due.getTime() + days(30)))).toMatchObject({ renewed: 0, past_due: 0, expired: 0 });
  });

  it('a retry that passes starts the new period at the payment, never in the past, and charges nothing more a minute later', async () => {
    const { userId, startedAt } = await subscribe('vip-weekly');
    const due = new Date(startedAt.getTime() + days(7));
    await cardOf(userId, 'card_declined');
    expect(await runAt(due)).toMatchObject({ past_due: 1 });
    await cardOf(userId, 'succeeds');
    const paidAt = new Date(due.getTime() + days(2));
    expect(await runAt(paidAt)).toMatchObject({ renewed: 1 });

    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'active', renewsAt: new Date(paidAt.getTime() + days(7)).toISOString() });
    expect(await runAt(new Date(paidAt.getTime() + 60_000))).toMatchObject({ renewed: 0, past_due: 0 });
    expect(await subscriptionEvents(userId)).toEqual(['subscription.started', 'subscription.past_due', 'subscription.renewed']);
    expect(site.unlock.vip.get(userId)?.activeUntil).toEqual(new Date(paidAt.getTime() + days(7)));
  });

  it('a hard decline (a stolen card) expires at once, with no retry', async () => {
    const { userId, startedAt } = await subscribe('vip-weekly');
    await cardOf(userId, 'stolen_card');

    expect(await runAt(new Date(startedAt.getTime() + days(7)))).toMatchObject({ expired: 1 });
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'expired' });
    expect((await site.eventsOf('payment.failed', userId)).map((event) => event.data.reason)).toEqual(['stolen_card']);
    expect(await subscriptionEvents(userId)).toEqual(['subscription.started', 'subscription.expired']);
    expect(site.unlock.vip.has(userId)).toBe(false);
    expect(await runAt(new Date(startedAt.getTime() + days(8)))).toMatchObject({ renewed: 0, past_due: 0, expired: 0 });
  });

  it('an off-session authentication_required is soft: past due and retried, not ended', async () => {
    const { userId, startedAt } = await subscribe('vip-weekly', cards.authenticateAlways);
    expect(await runAt(new Date(startedAt.getTime() + days(7)))).toMatchObject({ past_due: 1 });
    expect((await site.eventsOf('payment.failed', userId)).map((event) => event.data.reason)).toEqual(['authentication_required']);
  });

  it('two runs at once renew a subscription once', async () => {
    const { userId, startedAt } = await subscribe('vip-weekly');
    const at = new Date(startedAt.getTime() + days(7));
    site.clock.time = at;
    const outcomes = await Promise.all([site.payments.renewDueSubscriptions(at), site.payments.renewDueSubscriptions(at)]);
    expect(outcomes.reduce((sum, outcome) => sum + outcome.renewed, 0)).toBe(1);
    const renewals = await site.rows<{ id: string }>(sql`select id from payment.orders where user_id = ${userId} and period_start is not null`);
    expect(renewals).toHaveLength(1);
    expect(await site.chargesOf(renewals[0]!.id)).toBe(1);
  });
});

describe('cancel and resume', () => {
  it('cancel keeps access until renewsAt, charges nothing more, then expires', async () => {
    const { userId, startedAt } = await subscribe('vip-monthly');
    const renewsAt = addMonthsOnDay(startedAt, 1, startedAt.getUTCDate());
    site.clock.advance(days(3));

    const canceled = await site.payments.cancelSubscription(userId);
    expect(canceled).toEqual({ planId: 'vip-monthly', status: 'active', renewsAt: renewsAt.toISOString(), cancelAtPeriodEnd: true });
    expect(await site.payments.cancelSubscription(userId)).toEqual(canceled);
    expect(site.unlock.vip.get(userId)).toEqual({ planId: 'vip-monthly', activeUntil: renewsAt, cancelAtPeriodEnd: true });

    expect(await runAt(new Date(renewsAt.getTime() - 60_000))).toMatchObject({ expired: 0 });
    expect(site.unlock.vip.has(userId)).toBe(true);
    expect(await runAt(renewsAt)).toMatchObject({ expired: 1, renewed: 0 });
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'expired' });
    expect(site.unlock.vip.has(userId)).toBe(false);
    expect(await subscriptionEvents(userId)).toEqual(['subscription.started', 'subscription.canceled', 'subscription.expired']);
    expect(await site.rows(sql`select id from payment.orders where user_id = ${userId} and period_start is not null`)).toEqual([]);
    expect(await failureOf(site.payments.cancelSubscription(userId))).toBeInstanceOf(NotFound);
  });

  it('resume before renewsAt renews as before; after it, or with nothing canceled, answers 409', async () => {
    const { userId, startedAt } = await subscribe('vip-weekly');
    const renewsAt = new Date(startedAt.getTime() + days(7));
    expect(await failureOf(site.payments.resumeSubscription(userId))).toBeInstanceOf(Conflict);
    await site.payments.cancelSubscription(userId);

    site.clock.time = new Date(renewsAt.getTime() - 60_000);
    expect(await site.payments.resumeSubscription(userId)).toEqual({ planId: 'vip-weekly', status: 'active', renewsAt: renewsAt.toISOString(), cancelAtPeriodEnd: false });
    expect(site.unlock.vip.get(userId)).toMatchObject({ cancelAtPeriodEnd: false });
    expect(await runAt(renewsAt)).toMatchObject({ renewed: 1 });

    await site.payments.cancelSubscription(userId);
    site.clock.time = new Date(renewsAt.getTime() + days(7));
    expect(await failureOf(site.payments.resumeSubscription(userId))).toBeInstanceOf(Conflict);
    expect(await failureOf(site.payments.resumeSubscription(site.buyer().userId))).toBeInstanceOf(NotFound);
  });

  it('buying VIP again while subscribed adds a period after the current one', async () => {
    const { userId, context, startedAt } = await subscribe('vip-weekly');
    const more = await site.payments.createOrder(context, userId, 'vip-monthly');
    await site.pay(userId, more.id, cards.visa);
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ planId: 'vip-monthly', status: 'active', renewsAt: addMonthsOnDay(new Date(startedAt.getTime() + days(7)), 1, new Date(startedAt.getTime() + days(7)).getUTCDate()).toISOString() });
    expect(await subscriptionEvents(userId)).toEqual(['subscription.started', 'subscription.renewed']);
  });
});

describe('a VIP paid through the PayPal-style redirect', () => {
  /** Pays `orderId` through the redirect flow: no card is kept, so nothing can renew what it buys. */
  async function payByRedirect(userId: string, orderId: string) {
    const { approveUrl } = await site.payments.startRedirect(userId, orderId, 'https://shop.example');
    const paymentId = approveUrl.split('/').at(-1)!;
    await site.sandbox.finishRedirect(paymentId, true);
    const event = site.webhook('payment_intent.succeeded', paymentId, orderId);
    await site.payments.receiveWebhook(event.raw, event.signature);
  }

  async function subscribeByRedirect(planId: string, buyer = site.buyer()) {
    const order = await site.payments.createOrder(buyer.context, buyer.userId, planId);
    await payByRedirect(buyer.userId, order.id);
    return buyer;
  }

  it('is shown, told to the unlock service and mailed as ending at its period end, not as renewing', async () => {
    // The buyer's card was declined first (the order keeps the email for the receipt), then PayPal paid.
    const { userId, context } = site.buyer();
    const order = await site.payments.createOrder(context, userId, 'vip-monthly');
    expect((await site.pay(userId, order.id, cards.declined)).status).toBe('failed');
    const startedAt = site.clock.time;
    await payByRedirect(userId, order.id);
    const renewsAt = addMonthsOnDay(startedAt, 1, startedAt.getUTCDate());

    expect(await site.payments.subscriptionOf(userId)).toEqual({ planId: 'vip-monthly', status: 'active', renewsAt: renewsAt.toISOString(), cancelAtPeriodEnd: true });
    expect((await site.payments.listPayments(userId, 1, 20)).subscription).toMatchObject({ cancelAtPeriodEnd: true });
    expect(site.unlock.vip.get(userId)).toEqual({ planId: 'vip-monthly', activeUntil: renewsAt, cancelAtPeriodEnd: true });
    expect((await site.eventsOf('subscription.started', userId))[0]!.data).toMatchObject({ cancelAtPeriodEnd: true });
    const receipt = site.mails.find((mail) => mail.text.includes(order.id))!;
    const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(renewsAt);
    expect(receipt.text).toContain(`VIP until: ${date}, then it ends (it does not renew automatically)`);
    expect(receipt.text).not.toContain('renewing automatically');

    // Resuming would promise a renewal nothing can pay for.
    const refusal = await failureOf(site.payments.resumeSubscription(userId));
    expect(refusal).toBeInstanceOf(Conflict);
    expect(refusal).toMatchObject({ message: 'This VIP was paid without a saved card, so it cannot renew by itself: buy it again by card before it ends' });
    expect(await runAt(renewsAt)).toMatchObject({ expired: 1, renewed: 0 });
    expect(site.unlock.vip.has(userId)).toBe(false);
  });

  it('bought again by PayPal while subscribed by PayPal still ends; bought by card, it renews', async () => {
    const first = await subscribeByRedirect('vip-weekly');
    await subscribeByRedirect('vip-weekly', first);
    expect(await site.payments.subscriptionOf(first.userId)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });

    const more = await site.payments.createOrder(first.context, first.userId, 'vip-weekly');
    await site.pay(first.userId, more.id, cards.visa);
    expect(await site.payments.subscriptionOf(first.userId)).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });
  });

  it('is held by the database: a subscription without a saved card cannot be set to renew', async () => {
    const { userId } = await subscribeByRedirect('vip-monthly');
    const write = await failureOf(site.database.db.execute(sql`update payment.subscriptions set cancel_at_period_end = false where user_id = ${userId}`));
    expect(write).toBeInstanceOf(Error);
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ cancelAtPeriodEnd: true });
  });
});
