import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '@cliffhanger/platform';
import { cards, DAY_MS, openPayments, type PaymentsSite } from './fixture.ts';

/** Renewals like Stripe's Smart Retries with the app stores' grace period, calendar billing, card replacement and the mails (issue 25). */

let site: PaymentsSite;
beforeAll(async () => {
  site = await openPayments();
});
afterAll(() => site.close());
afterEach(async () => {
  await site.database.db.execute(sql`update payment.subscriptions set status = 'expired' where status in ('active', 'past_due')`);
});

const days = (n: number) => n * DAY_MS;
const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);

async function subscribe(planId: string, at: Date) {
  site.clock.time = at;
  const { userId, context } = site.buyer();
  const order = await site.payments.createOrder(context, userId, planId);
  const answer = await site.payments.pay(
    userId,
    { orderId: order.id, paymentToken: await site.tokenize(cards.visa), email: 'ada@example.com', firstName: 'Ada', lastName: 'Viewer', language: 'es' },
    { idempotencyKey: `key-${order.id}`, origin: 'https://shop.example' },
  );
  expect(answer.status).toBe('succeeded');
  return { userId, order };
}

async function cardOf(userId: string, outcome: 'card_declined' | 'succeeds') {
  await site.database.db.execute(sql`
    update sandbox_payments.payment_methods set outcome = ${outcome}
     where customer_id = (select id from sandbox_payments.customers where user_id = ${userId})`);
}

async function runAt(at: Date) {
  site.clock.time = at;
  return site.payments.renewDueSubscriptions(at);
}

const mailsTo = (subject: RegExp) => site.mails.filter((mail) => subject.test(mail.subject));

describe('calendar billing', () => {
  it('a monthly plan bought on Jan 31 renews Feb 29, Mar 31, Apr 30, May 31', async () => {
    const { userId } = await subscribe('vip-monthly', new Date('2024-01-31T10:00:00Z'));
    const dues = ['2024-02-29T10:00:00.000Z', '2024-03-31T10:00:00.000Z', '2024-04-30T10:00:00.000Z', '2024-05-31T10:00:00.000Z', '2024-06-30T10:00:00.000Z'];
    expect((await site.payments.subscriptionOf(userId))?.renewsAt).toBe(dues[0]);
    for (let i = 0; i < 4; i++) {
      expect(await runAt(new Date(dues[i]!))).toMatchObject({ renewed: 1 });
      expect((await site.payments.subscriptionOf(userId))?.renewsAt).toBe(dues[i + 1]);
    }
  });

  it('a yearly plan bought on Feb 29 renews Feb 28, then Feb 29 in the next leap year', async () => {
    const { userId } = await subscribe('vip-yearly', new Date('2024-02-29T08:00:00Z'));
    expect((await site.payments.subscriptionOf(userId))?.renewsAt).toBe('2025-02-28T08:00:00.000Z');
    await runAt(new Date('2025-02-28T08:00:00Z'));
    await runAt(new Date('2026-02-28T08:00:00Z'));
    await runAt(new Date('2027-02-28T08:00:00Z'));
    expect((await site.payments.subscriptionOf(userId))?.renewsAt).toBe('2028-02-29T08:00:00.000Z');
  });
});

describe('grace period', () => {
  it('a generic decline keeps VIP 7 days past the period, then access pauses until a retry pays', async () => {
    const start = new Date('2025-05-01T12:00:00Z');
    const { userId } = await subscribe('vip-weekly', start);
    const due = new Date(start.getTime() + days(7));
    await cardOf(userId, 'card_declined');
    expect(await runAt(due)).toMatchObject({ past_due: 1 });
    const graceEnd = new Date(due.getTime() + days(7));
    expect(site.unlock.vip.get(userId)).toMatchObject({ activeUntil: graceEnd });

    // Day 8: still declined, still past due, and the grace is over: access is paused.
    for (const day of [1, 2, 4, 6, 8]) expect(await runAt(new Date(due.getTime() + days(day)))).toMatchObject({ past_due: 1 });
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'past_due' });
    expect(site.unlock.vip.get(userId)!.activeUntil.getTime()).toBeLessThan(site.clock.time.getTime());

    // Day 11: the card passes; the new week starts at the payment.
    await cardOf(userId, 'succeeds');
    const paidAt = new Date(due.getTime() + days(11));
    expect(await runAt(paidAt)).toMatchObject({ renewed: 1 });
    expect(site.unlock.vip.get(userId)).toMatchObject({ activeUntil: new Date(paidAt.getTime() + days(7)) });
  });
});

describe('a new card for a past-due subscription', () => {
  it('is charged at once, kept for the renewals after it, and a repeat of the call charges nothing', async () => {
    const start = new Date('2025-06-01T12:00:00Z');
    const { userId } = await subscribe('vip-weekly', start);
    const due = new Date(start.getTime() + days(7));
    await cardOf(userId, 'card_declined');
    await runAt(due);

    site.clock.time = new Date(due.getTime() + days(3));
    const token = await site.tokenize(cards.visa);
    const replaced = await site.payments.replaceCard(userId, token, 'https://shop.example');
    expect(replaced).toMatchObject({ status: 'active', renewsAt: new Date(site.clock.time.getTime() + days(7)).toISOString(), payment: { status: 'succeeded' } });
    expect(site.unlock.vip.get(userId)).toMatchObject({ activeUntil: new Date(site.clock.time.getTime() + days(7)) });
    expect(await site.payments.replaceCard(userId, token, 'https://shop.example')).toEqual(replaced);
    const [renewal] = await site.rows<{ id: string; status: string }>(sql`select id, status from payment.orders where user_id = ${userId} and period_start is not null`);
    expect(renewal!.status).toBe('succeeded');
    expect(await site.chargesOf(renewal!.id)).toBe(2); // the old card's decline, the new card's payment

    // The old card still declines; the next renewal charges the new one.
    expect(await runAt(new Date(site.clock.time.getTime() + days(7)))).toMatchObject({ renewed: 1 });
  });

  it('that asks for 3-D Secure answers the client secret and its order; the challenge passed in the page and completed makes the subscription active at once', async () => {
    const start = new Date('2025-07-15T12:00:00Z');
    const { userId } = await subscribe('vip-weekly', start);
    await cardOf(userId, 'card_declined');
    await runAt(new Date(start.getTime() + days(7)));
    const replaced = await site.payments.replaceCard(userId, await site.tokenize(cards.authenticateOnce), 'https://shop.example');
    const [renewal] = await site.rows<{ id: string }>(sql`select id from payment.orders where user_id = ${userId} and period_start is not null`);
    expect(replaced).toMatchObject({ status: 'past_due', payment: { orderId: renewal!.id, status: 'requires_action', clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/) } });

    const paymentId = replaced.payment.clientSecret!.split('_secret_')[0]!;
    expect(await site.sandbox.authenticateInPage(paymentId, replaced.payment.clientSecret!, true)).toMatchObject({ status: 'succeeded' });
    expect(await site.payments.completePayment(userId, replaced.payment.orderId)).toEqual({ orderId: renewal!.id, status: 'succeeded' });
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'active', renewsAt: new Date(site.clock.time.getTime() + days(7)).toISOString() });
    const event = site.webhook('payment_intent.succeeded', paymentId, renewal!.id);
    await site.payments.receiveWebhook(event.raw, event.signature);
    expect(await site.eventsOf('subscription.renewed', userId)).toHaveLength(1);
  });

  it('is refused with 409 while the subscription is paid up, and 404 without one', async () => {
    const { userId } = await subscribe('vip-weekly', new Date('2025-07-01T12:00:00Z'));
    expect(await failureOf(site.payments.replaceCard(userId, await site.tokenize(cards.visa), 'https://shop.example'))).toBeInstanceOf(Conflict);
    expect(await failureOf(site.payments.replaceCard('user-none', await site.tokenize(cards.visa), 'https://shop.example'))).toBeInstanceOf(NotFound);
  });

  it('that declines leaves the subscription past due with its retries', async () => {
    const start = new Date('2025-08-01T12:00:00Z');
    const { userId } = await subscribe('vip-weekly', start);
    await cardOf(userId, 'card_declined');
    await runAt(new Date(start.getTime() + days(7)));
    const replaced = await site.payments.replaceCard(userId, await site.tokenize(cards.declined), 'https://shop.example');
    expect(replaced).toMatchObject({ status: 'past_due', payment: { status: 'failed', message: 'Your card was declined.' } });
  });
});

describe('mails', () => {
  it('a receipt for every payment, one failed-renewal notice a period, one reminder 3 days before a monthly renewal, in the buyer\'s language', async () => {
    site.mails.length = 0;
    const start = new Date('2025-09-10T12:00:00Z');
    const { userId, order } = await subscribe('vip-monthly', start);
    expect(mailsTo(/^Tu recibo de Cliffhanger/)).toHaveLength(1);
    expect(site.mails[0]!.text).toContain(order.id);

    const due = new Date('2025-10-10T12:00:00Z');
    await site.payments.sendDueReminders(new Date(due.getTime() - days(4)));
    expect(mailsTo(/se renueva/)).toHaveLength(0);
    for (const at of [days(3), days(2), days(1)]) {
      site.clock.time = new Date(due.getTime() - at);
      await site.payments.runDueWork(site.clock.time);
    }
    expect(mailsTo(/se renueva/)).toHaveLength(1);
    expect(mailsTo(/se renueva/)[0]!.text).toContain('/shopping');

    await cardOf(userId, 'card_declined');
    await runAt(due);
    await runAt(new Date(due.getTime() + days(1)));
    await runAt(new Date(due.getTime() + days(2)));
    const notices = mailsTo(/^No se pudo renovar/);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toContain('/shopping');

    await cardOf(userId, 'succeeds');
    await runAt(new Date(due.getTime() + days(4)));
    await runAt(new Date(due.getTime() + days(4) + 60_000));
    expect(mailsTo(/^Tu recibo de Cliffhanger/)).toHaveLength(2);
  });

  it('no reminder for a weekly plan', async () => {
    site.mails.length = 0;
    const start = new Date('2025-11-01T12:00:00Z');
    await subscribe('vip-weekly', start);
    await site.payments.sendDueReminders(new Date(start.getTime() + days(5)));
    expect(site.mails.filter((mail) => /renew/i.test(mail.subject) || /renueva/.test(mail.subject))).toHaveLength(0);
  });
});

describe('refund mail', () => {
  it('is sent once per refund, in the buyer\'s language, however often order.refunded arrives', async () => {
    site.mails.length = 0;
    const { order } = await subscribe('vip-weekly', new Date('2025-12-01T12:00:00Z'));
    await site.payments.mailRefund(order.id, 'refund-1', { amount: 499, currency: 'USD' });
    await site.payments.mailRefund(order.id, 'refund-1', { amount: 499, currency: 'USD' });
    const refunds = mailsTo(/^Tu reembolso de Cliffhanger/);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.text).toContain('4,99');
  });
});
