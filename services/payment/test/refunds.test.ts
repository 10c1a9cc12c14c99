import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, PaymentRequired } from '@cliffhanger/platform';
import type { UnlockService } from '@cliffhanger/unlock';
import { byToken, cards, openPayments, type PaymentsSite } from './fixture.ts';

// Refunds and disputes (issue 25) against the real unlock service on the same database: coins taken
// back, unlocks revoked, VIP as the viewer sees it.
let site: PaymentsSite;
let wallets: UnlockService;
beforeAll(async () => {
  site = await openPayments({ wallets: true });
  wallets = site.wallets!;
});
afterAll(() => site.close());

const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);

/** A buyer who paid `planId` by card: the order and the payment it keeps at the provider. */
async function paidOrder(planId: string) {
  const { userId, context } = site.buyer();
  const order = await site.payments.createOrder(context, userId, planId);
  expect(await site.pay(userId, order.id, cards.visa)).toMatchObject({ status: 'succeeded' });
  const paymentId = (await site.orderRow(order.id)).payment_id!;
  return { userId, context, order, paymentId };
}

/** Episode `number` of `videoId` at `priceCoins`, transcoded. */
const episode = (videoId: string, number: number, priceCoins: number) => ({ episodeId: `${videoId}-ep${number}`, videoId, number, freeEpisodes: 0, priceCoins, status: 'ready' as const });

/** Stripe's `charge.refunded` for the payment: `amountRefunded` is every refund of it so far. */
const chargeRefunded = (paymentId: string, price: number, amountRefunded: number) =>
  site.providerEvent('charge.refunded', {
    id: `ch_${randomUUID().replace(/-/g, '')}`,
    object: 'charge',
    amount: price,
    amount_refunded: amountRefunded,
    refunded: amountRefunded >= price,
    currency: 'usd',
    payment_intent: paymentId,
    status: 'succeeded',
  });

/** Stripe's `charge.dispute.created` (status `needs_response`) or `.closed` (`won` or `lost`). */
const disputeEvent = (type: 'charge.dispute.created' | 'charge.dispute.closed', paymentId: string, disputeId: string, amount: number, status: string) =>
  site.providerEvent(type, { id: disputeId, object: 'dispute', amount, currency: 'usd', payment_intent: paymentId, reason: 'fraudulent', status });

const deliver = (event: { raw: Buffer; signature: string }) => site.payments.receiveWebhook(event.raw, event.signature);

const refundsOf = (orderId: string) =>
  site.rows<{ source: string; status: string; amount: number; paid_coins: number; bonus_coins: number }>(
    sql`select source, status, amount, paid_coins, bonus_coins from payment.refunds where order_id = ${orderId} order by created_at, amount`,
  );
const orderOf = async (orderId: string) =>
  (await site.rows<{ status: string; refunded_amount: number }>(sql`select status, refunded_amount from payment.orders where id = ${orderId}`))[0]!;
const coinsOf = async (userId: string) => (await wallets.standingOf(userId)).coins;
/** Every balance the user's wallet ever had, in ledger order. */
const balancesOf = async (userId: string) =>
  (await site.rows<{ paid_balance: number; bonus_balance: number }>(sql`select paid_balance, bonus_balance from unlock.ledger where user_id = ${userId} order by id`)).map(
    (entry) => entry.paid_balance + entry.bonus_balance,
  );
const ledgerKindsOf = async (userId: string) =>
  (await site.rows<{ kind: string }>(sql`select kind from unlock.ledger where user_id = ${userId} order by id`)).map((entry) => entry.kind);

describe('charge.refunded', () => {
  it('a refund made at the provider reverses the coins once, though its webhook comes twice', async () => {
    const { userId, order, paymentId } = await paidOrder('coins-500');
    expect(await coinsOf(userId)).toBe(550);
    // The refund an operator made in the provider's dashboard: money back, and only the webhook tells us.
    await site.sandbox.refund({ paymentId, amount: { amount: 499, currency: 'USD' }, idempotencyKey: `dashboard-${order.id}`, metadata: { orderId: order.id, refundId: 'dashboard' } });
    const refunded = chargeRefunded(paymentId, 499, 499);

    await deliver(refunded);
    await deliver(refunded);
    // Another event with the same refunded total (a second notice of the same refund) adds nothing either.
    await deliver(chargeRefunded(paymentId, 499, 499));

    expect(await orderOf(order.id)).toEqual({ status: 'refunded', refunded_amount: 499 });
    expect(await refundsOf(order.id)).toEqual([{ source: 'provider', status: 'succeeded', amount: 499, paid_coins: 500, bonus_coins: 50 }]);
    expect(await coinsOf(userId)).toBe(0);
    expect((await ledgerKindsOf(userId)).filter((kind) => kind === 'refund')).toHaveLength(1);
    const events = await site.eventsOf('order.refunded', userId);
    expect(events.map((event) => event.data)).toEqual([
      expect.objectContaining({ orderId: order.id, amount: { amount: 499, currency: 'USD' }, refundedTotal: { amount: 499, currency: 'USD' }, source: 'provider', full: true }),
    ]);
  });

  it("our own admin refund's webhook adds nothing", async () => {
    const { userId, order, paymentId } = await paidOrder('coins-500');

    const answer = await site.payments.refundOrder(order.id, null, 'asked by the viewer', byToken);
    expect(answer).toMatchObject({ status: 'refunded', refunded: { amount: 499, currency: 'USD' }, reversed: { coinsTaken: 550, unlocksRevoked: 0, vipEnded: false } });
    await deliver(chargeRefunded(paymentId, 499, 499));

    expect(await refundsOf(order.id)).toEqual([{ source: 'operator', status: 'succeeded', amount: 499, paid_coins: 500, bonus_coins: 50 }]);
    expect(await orderOf(order.id)).toEqual({ status: 'refunded', refunded_amount: 499 });
    expect(await coinsOf(userId)).toBe(0);
    expect(await site.eventsOf('order.refunded', userId)).toHaveLength(1);
  });
});

describe('partial refunds', () => {
  it("add up to all the order's coins, whoever made them", async () => {
    const { userId, order, paymentId } = await paidOrder('coins-500');

    // 100 of 499 cents: its share rounded up, 101 paid and 11 bonus coins.
    expect((await site.payments.refundOrder(order.id, 100, 'one episode was broken', byToken)).reversed).toEqual({ coinsTaken: 112, unlocksRevoked: 0, vipEnded: false });
    expect(await orderOf(order.id)).toEqual({ status: 'partially_refunded', refunded_amount: 100 });
    // 150 more at the provider: the refunded total 250 less the 100 we know of.
    await site.sandbox.refund({ paymentId, amount: { amount: 150, currency: 'USD' }, idempotencyKey: `dashboard-${order.id}`, metadata: { orderId: order.id, refundId: 'dashboard' } });
    await deliver(chargeRefunded(paymentId, 499, 250));
    expect(await orderOf(order.id)).toEqual({ status: 'partially_refunded', refunded_amount: 250 });
    // The rest.
    expect((await site.payments.refundOrder(order.id, null, 'the rest', byToken)).reversed).toEqual({ coinsTaken: 273, unlocksRevoked: 0, vipEnded: false });

    const refunds = await refundsOf(order.id);
    expect(refunds.map((refund) => [refund.source, refund.amount, refund.paid_coins, refund.bonus_coins])).toEqual([
      ['operator', 100, 101, 11],
      ['provider', 150, 150, 15],
      ['operator', 249, 249, 24],
    ]);
    expect(refunds.reduce((sum, refund) => sum + refund.paid_coins, 0)).toBe(500);
    expect(refunds.reduce((sum, refund) => sum + refund.bonus_coins, 0)).toBe(50);
    expect(await orderOf(order.id)).toEqual({ status: 'refunded', refunded_amount: 499 });
    expect(await coinsOf(userId)).toBe(0);
    const events = (await site.eventsOf('order.refunded', userId)).map((event) => [event.data.refundedTotal.amount, event.data.full]);
    expect(events).toEqual([
      [100, false],
      [250, false],
      [499, true],
    ]);
    expect(await failureOf(site.payments.refundOrder(order.id, 1, 'once more', byToken))).toBeInstanceOf(Conflict);
  });

  it('of spent coins revoke the latest unlocks they paid for, and the wallet never goes below zero', async () => {
    const { userId, context, order } = await paidOrder('coins-100');
    for (const number of [1, 2, 3]) {
      await wallets.unlockEpisode(context, userId, episode(`spent-${userId}`, number, 30));
      site.clock.advance(1000);
    }
    expect(await coinsOf(userId)).toBe(10);

    // 50 of 99 cents takes 51 coins: the wallet's 10, then episodes 3 and 2 revoked (latest first), 19 left.
    expect((await site.payments.refundOrder(order.id, 50, 'half', byToken)).reversed).toEqual({ coinsTaken: 51, unlocksRevoked: 2, vipEnded: false });
    expect(await wallets.unlockedNumbers(userId, `spent-${userId}`)).toEqual([1]);
    expect(await coinsOf(userId)).toBe(19);

    // The other 49 coins: episode 1 goes too.
    expect((await site.payments.refundOrder(order.id, null, 'the rest', byToken)).reversed).toEqual({ coinsTaken: 49, unlocksRevoked: 1, vipEnded: false });
    expect(await wallets.unlockedNumbers(userId, `spent-${userId}`)).toEqual([]);
    expect(await coinsOf(userId)).toBe(0);
    expect((await balancesOf(userId)).every((balance) => balance >= 0)).toBe(true);
    expect((await ledgerKindsOf(userId)).filter((kind) => kind === 'revoke')).toHaveLength(3);
  });

  it('of a VIP period give money only: the VIP lasts until a refund makes it whole', async () => {
    const { userId, order } = await paidOrder('vip-weekly');
    expect((await wallets.standingOf(userId)).vip).toMatchObject({ planId: 'vip-weekly' });

    expect((await site.payments.refundOrder(order.id, 200, 'a goodwill gesture', byToken)).reversed).toEqual({ coinsTaken: 0, unlocksRevoked: 0, vipEnded: false });
    expect((await wallets.standingOf(userId)).vip).toMatchObject({ planId: 'vip-weekly' });
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'active' });

    expect((await site.payments.refundOrder(order.id, null, 'the rest', byToken)).reversed).toEqual({ coinsTaken: 0, unlocksRevoked: 0, vipEnded: true });
    expect((await wallets.standingOf(userId)).vip).toBeNull();
    expect(await site.payments.subscriptionOf(userId)).toMatchObject({ status: 'canceled' });
    expect(await site.eventsOf('order.refunded', userId)).toHaveLength(2);
    expect(await site.eventsOf('subscription.canceled', userId)).toHaveLength(1);
  });
});

describe('disputes', () => {
  it('an open dispute suspends the coins and the unlocks they paid for; won gives them back', async () => {
    const { userId, context, order, paymentId } = await paidOrder('coins-500');
    const series = `disputed-${userId}`;
    await wallets.unlockEpisode(context, userId, episode(series, 1, 100));
    const disputeId = `dp_${randomUUID().replace(/-/g, '')}`;
    const opened = disputeEvent('charge.dispute.created', paymentId, disputeId, 499, 'needs_response');

    await deliver(opened);
    await deliver(opened);

    expect(await coinsOf(userId)).toBe(0);
    expect(await wallets.unlockedNumbers(userId, series)).toEqual([]);
    expect(await failureOf(wallets.unlockEpisode(context, userId, episode(series, 2, 10)))).toBeInstanceOf(PaymentRequired);
    expect(await failureOf(site.payments.refundOrder(order.id, null, 'while disputed', byToken))).toBeInstanceOf(Conflict);
    expect((await site.eventsOf('payment.disputed', userId)).map((event) => event.data)).toEqual([
      expect.objectContaining({ orderId: order.id, disputeId, amount: { amount: 499, currency: 'USD' }, reason: 'fraudulent' }),
    ]);

    const won = disputeEvent('charge.dispute.closed', paymentId, disputeId, 499, 'won');
    await deliver(won);
    await deliver(won);

    expect(await coinsOf(userId)).toBe(450);
    expect(await wallets.unlockedNumbers(userId, series)).toEqual([1]);
    expect(await orderOf(order.id)).toEqual({ status: 'succeeded', refunded_amount: 0 });
    expect((await site.eventsOf('payment.dispute_closed', userId)).map((event) => event.data)).toEqual([expect.objectContaining({ orderId: order.id, disputeId, won: true })]);
    expect(await site.eventsOf('order.refunded', userId)).toHaveLength(0);
  });

  it('lost, it stands as a refund: the coins stay taken, once, and order.refunded follows', async () => {
    const { userId, order, paymentId } = await paidOrder('coins-500');
    const disputeId = `dp_${randomUUID().replace(/-/g, '')}`;

    await deliver(disputeEvent('charge.dispute.created', paymentId, disputeId, 499, 'needs_response'));
    const lost = disputeEvent('charge.dispute.closed', paymentId, disputeId, 499, 'lost');
    await deliver(lost);
    await deliver(lost);

    expect(await coinsOf(userId)).toBe(0);
    expect(await orderOf(order.id)).toEqual({ status: 'refunded', refunded_amount: 499 });
    expect(await refundsOf(order.id)).toEqual([{ source: 'dispute', status: 'succeeded', amount: 499, paid_coins: 500, bonus_coins: 50 }]);
    expect((await ledgerKindsOf(userId)).filter((kind) => kind === 'refund')).toHaveLength(1);
    expect((await site.eventsOf('order.refunded', userId)).map((event) => event.data)).toEqual([
      expect.objectContaining({ orderId: order.id, source: 'dispute', amount: { amount: 499, currency: 'USD' }, full: true }),
    ]);
    expect((await site.eventsOf('payment.disputed', userId)).length).toBe(1);
    expect((await site.eventsOf('payment.dispute_closed', userId)).map((event) => event.data.won)).toEqual([false]);
  });

  it('of a VIP period turns VIP off while open; won turns it back on, lost ends it', async () => {
    const kept = await paidOrder('vip-weekly');
    const keptDispute = `dp_${randomUUID().replace(/-/g, '')}`;
    await deliver(disputeEvent('charge.dispute.created', kept.paymentId, keptDispute, 499, 'needs_response'));
    expect((await wallets.standingOf(kept.userId)).vip).toBeNull();
    await deliver(disputeEvent('charge.dispute.closed', kept.paymentId, keptDispute, 499, 'won'));
    expect((await wallets.standingOf(kept.userId)).vip).toMatchObject({ planId: 'vip-weekly' });
    expect(await site.payments.subscriptionOf(kept.userId)).toMatchObject({ status: 'active' });

    const ended = await paidOrder('vip-weekly');
    const endedDispute = `dp_${randomUUID().replace(/-/g, '')}`;
    await deliver(disputeEvent('charge.dispute.created', ended.paymentId, endedDispute, 499, 'needs_response'));
    await deliver(disputeEvent('charge.dispute.closed', ended.paymentId, endedDispute, 499, 'lost'));
    expect((await wallets.standingOf(ended.userId)).vip).toBeNull();
    expect(await site.payments.subscriptionOf(ended.userId)).toMatchObject({ status: 'canceled' });
    expect(await site.eventsOf('order.refunded', ended.userId)).toHaveLength(1);
    expect(await site.eventsOf('subscription.canceled', ended.userId)).toHaveLength(1);
  });
});
