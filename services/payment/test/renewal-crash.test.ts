import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent } from '@cliffhanger/platform';
import type { PaymentProvider } from '../src/providers/index.ts';
import { cards, DAY_MS, openPayments, type PaymentsSite } from './fixture.ts';

// A renewal whose process died after the provider took the money and before the order settled
// (issue 25, found by the money conservation test): the next renewal asks again with the key recorded
// on the order, even after a guest merge moved the subscription's renews_at, and never charges twice.
let site: PaymentsSite;
/** While set, a saved-card charge reaches the provider and then the process "dies" before it hears the answer. */
let dieAfterCharge = false;
beforeAll(async () => {
  site = await openPayments({
    provider: (sandbox): PaymentProvider => ({
      ...sandbox,
      async chargeSaved(input) {
        const charged = await sandbox.chargeSaved(input);
        if (dieAfterCharge) throw new Error(`the process died after charging ${charged.paymentId}`);
        return charged;
      },
    }),
  });
});
afterAll(() => site.close());

const days = (n: number) => n * DAY_MS;
type Buyer = ReturnType<PaymentsSite['buyer']>;

async function subscribe(buyer: Buyer, at: Date) {
  site.clock.time = at;
  const order = await site.payments.createOrder(buyer.context, buyer.userId, 'vip-weekly');
  expect((await site.pay(buyer.userId, order.id, cards.visa)).status).toBe('succeeded');
  const [sub] = await site.rows<{ id: string }>(sql`select id from payment.subscriptions where user_id = ${buyer.userId} and status = 'active'`);
  return sub!;
}

/** The off-session charges the provider took for the subscription's orders, and those orders. */
async function renewalCharges(subscriptionId: string) {
  return site.rows<{ payment_id: string; order_id: string; order_status: string; order_payment_id: string | null }>(sql`
    select p.id as payment_id, p.order_id, o.status as order_status, o.payment_id as order_payment_id
      from sandbox_payments.payments p join payment.orders o on o.id = p.order_id
     where o.subscription_id = ${subscriptionId} and p.flow = 'saved_card' and p.status = 'succeeded' order by p.created_at`);
}

describe('a renewal that died after the charge', () => {
  it('is asked again with its recorded key after a guest merge moved renews_at: one charge, and it settles its order', async () => {
    const start = new Date('2025-06-02T09:00:00Z');
    const member = site.buyer();
    const guest = site.buyer();
    const kept = await subscribe(member, start);
    await subscribe(guest, new Date(start.getTime() + days(3)));

    // Day 7: the member's renewal charges the card, and the process dies before the order settles.
    const due = new Date(start.getTime() + days(7));
    site.clock.time = due;
    dieAfterCharge = true;
    await site.payments.renewDueSubscriptions(due);
    dieAfterCharge = false;
    const [taken] = await renewalCharges(kept.id);
    expect(taken).toMatchObject({ order_status: 'created', order_payment_id: null });

    // The guest logs in to the member: the member's VIP is kept, with the guest's 3 unused days added.
    site.clock.time = new Date(due.getTime() + 60_000);
    const event = await site.database.transaction((tx) => appendEvent(tx, member.context, 'user.logged_in', { mergedGuestId: guest.userId }, member.userId));
    const merged = await site.database.transaction((tx) => site.payments.mergeGuestPurchases(tx, event));
    expect(merged).toMatchObject({ subscriptionId: kept.id, endedSubscriptionId: expect.any(String) });
    const movedTo = new Date((await site.payments.subscriptionOf(member.userId))!.renewsAt);
    expect(movedTo.getTime()).toBeGreaterThan(due.getTime() + days(2));

    // At the moved date the renewal runs again: the provider answers the first payment, which settles.
    site.clock.time = movedTo;
    expect(await site.payments.renewDueSubscriptions(movedTo)).toMatchObject({ renewed: 1 });
    const charges = await renewalCharges(kept.id);
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ payment_id: taken!.payment_id, order_status: 'succeeded', order_payment_id: taken!.payment_id });
    expect(await site.rows(sql`select id from payment.orders where subscription_id = ${kept.id} and status = 'created'`)).toEqual([]);
    // The money bought a period: the subscription renews a week on.
    expect((await site.payments.subscriptionOf(member.userId))!.renewsAt).toBe(new Date(movedTo.getTime() + days(7)).toISOString());
  });

  it("whose subscription ended meanwhile is asked again by the minute's work with its recorded key", async () => {
    const start = new Date('2025-08-04T09:00:00Z');
    const buyer = site.buyer();
    const sub = await subscribe(buyer, start);
    const due = new Date(start.getTime() + days(7));
    site.clock.time = due;
    dieAfterCharge = true;
    await site.payments.renewDueSubscriptions(due);
    dieAfterCharge = false;
    const [taken] = await renewalCharges(sub.id);

    // Ended while its charge was unanswered (as a guest merge ends the other VIP): the minute's work
    // asks again with the recorded key once the renewal lease could have lapsed, and settles it.
    await site.database.db.execute(sql`update payment.subscriptions set status = 'canceled', cancel_at_period_end = true, ended_at = ${due} where id = ${sub.id}`);
    const later = new Date(due.getTime() + 10 * 60_000);
    site.clock.time = later;
    await site.payments.runDueWork(later);
    const charges = await site.rows<{ id: string }>(sql`select id from sandbox_payments.payments where order_id = ${taken!.order_id} and status = 'succeeded'`);
    expect(charges).toEqual([{ id: taken!.payment_id }]);
    expect(await site.orderRow(taken!.order_id)).toMatchObject({ status: 'succeeded', payment_id: taken!.payment_id });
    // The money bought the week it was taken for, ending with it: nothing renews it.
    expect(await site.payments.subscriptionOf(buyer.userId)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
  });
});
