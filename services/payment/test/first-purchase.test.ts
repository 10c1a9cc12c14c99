import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict } from '@cliffhanger/platform';
import { cards, openPayments, type PaymentsSite } from './fixture.ts';

// The first-purchase offer (coins-first: 500 + 100 bonus coins for $1.99) is paid once per person.
// The payments that can both get past the checks before the charge are those the buyer completes
// later (3-D Secure, PayPal): the database decides when they settle.
let site: PaymentsSite;
beforeAll(async () => {
  site = await openPayments();
});
afterAll(() => site.close());

const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);
/** $1.99 at the best rate of the regular packs on sale (100 coins for $0.99), no bonus. */
const REGULAR_RATE_COINS = 201;

/** Two first-purchase orders of one buyer, both placed before either is paid. */
async function twoOffers() {
  const { userId, context } = site.buyer();
  const orders = [await site.payments.createOrder(context, userId, 'coins-first'), await site.payments.createOrder(context, userId, 'coins-first')];
  return { userId, orders };
}

const paymentIdOf = (url: string) => url.split('/').at(-1)!;

/** Both orders paid and settled: one with the offer, the other with the regular rate's coins; one charge each. Answers the other. */
async function expectOfferOnce(userId: string, orderIds: string[]): Promise<string> {
  for (const orderId of orderIds) {
    expect(await site.orderRow(orderId)).toMatchObject({ status: 'succeeded', unlock_synced_at: expect.anything() });
    expect(await site.chargesOf(orderId)).toBe(1);
  }
  const credited = orderIds.map((orderId) => site.unlock.credits.get(orderId)).map((credit) => [credit?.coins, credit?.bonusCoins]);
  expect(credited.sort()).toEqual([
    [REGULAR_RATE_COINS, 0],
    [500, 100],
  ]);
  const offers = await site.rows<{ id: string }>(sql`select id from payment.orders where user_id = ${userId} and first_purchase_only and status = 'succeeded'`);
  expect(offers).toHaveLength(1);
  expect((await site.payments.listPlans(userId)).map((plan) => plan.id)).not.toContain('coins-first');
  return orderIds.find((orderId) => orderId !== offers[0]!.id)!;
}

describe('the first-purchase offer, once per person', () => {
  it('two offer orders both completed through 3-D Secure, one by webhook and one by the sweep at once, pay the offer once', async () => {
    const { userId, orders } = await twoOffers();
    const waiting = await Promise.all(orders.map((order) => site.pay(userId, order.id, cards.authenticateOnce)));
    expect(waiting.map((answer) => answer.status)).toEqual(['requires_action', 'requires_action']);
    for (const answer of waiting) await site.sandbox.finishChallenge(paymentIdOf(answer.actionUrl!), true);

    site.clock.advance(3 * 60_000);
    const event = site.webhook('payment_intent.succeeded', paymentIdOf(waiting[1]!.actionUrl!), orders[1]!.id);
    await Promise.all([site.payments.receiveWebhook(event.raw, event.signature), site.payments.runDueWork(site.clock.time)]);

    const regular = await expectOfferOnce(userId, orders.map((order) => order.id));
    const receipt = site.mails.find((mail) => mail.text.includes(regular))!;
    expect(receipt.text).toContain(`Coins: ${REGULAR_RATE_COINS}\nThe first purchase offer was used already: this payment bought coins at the regular rate.`);
  });

  it('two offer orders both approved through the PayPal-style redirect, their webhooks at once, pay the offer once', async () => {
    const { userId, orders } = await twoOffers();
    const redirects = await Promise.all(orders.map((order) => site.payments.startRedirect(userId, order.id, 'https://shop.example')));
    for (const { approveUrl } of redirects) await site.sandbox.finishRedirect(paymentIdOf(approveUrl), true);

    const events = redirects.map(({ approveUrl }, index) => site.webhook('payment_intent.succeeded', paymentIdOf(approveUrl), orders[index]!.id));
    await Promise.all(events.map((event) => site.payments.receiveWebhook(event.raw, event.signature)));

    await expectOfferOnce(userId, orders.map((order) => order.id));
  });

  it('a second offer is refused before any charge when the first is paid already, by card or by PayPal', async () => {
    const { userId, orders } = await twoOffers();
    expect(await site.pay(userId, orders[0]!.id, cards.visa)).toMatchObject({ status: 'succeeded' });

    const byCard = await failureOf(site.pay(userId, orders[1]!.id, cards.visa));
    const byPaypal = await failureOf(site.payments.startRedirect(userId, orders[1]!.id, 'https://shop.example'));
    for (const refusal of [byCard, byPaypal]) {
      expect(refusal).toBeInstanceOf(Conflict);
      expect(refusal).toMatchObject({ message: 'The first purchase offer is only for your first purchase' });
    }
    expect(await site.chargesOf(orders[1]!.id)).toBe(0);
  });

  it('is held by the database: a second offer order cannot be marked paid, whatever writes it', async () => {
    const { userId, orders } = await twoOffers();
    await site.pay(userId, orders[0]!.id, cards.visa);

    const write = await failureOf(site.database.db.execute(sql`update payment.orders set status = 'succeeded', succeeded_at = now() where id = ${orders[1]!.id}`));
    expect(write).toBeInstanceOf(Error);
    expect((await site.orderRow(orders[1]!.id)).status).toBe('created');
  });
});
