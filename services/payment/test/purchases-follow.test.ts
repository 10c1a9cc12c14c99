import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@cliffhanger/platform';
import { eventually, makeClip, startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule } from '@cliffhanger/catalog';
import { ffmpegTools, transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';
import { paymentModule } from '../src/index.ts';
import { cards } from './fixture.ts';

// Purchases follow the viewer: what a guest bought is the account's once it logs in (the whole site).
const PASSWORD = 'correct horse 1';
const CONSUMERS = ['unlock.guest-merge', 'payment.guest-merge'];

let site: Site;
let videoId: string;
let episodeId: string;
beforeAll(async () => {
  site = await startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule, paymentModule] });
  videoId = await site.series({ title: 'Follow the Money', freeEpisodes: 0, priceCoins: 30 });
  episodeId = (await site.upload(videoId, await makeClip(ffmpegTools()), '?number=1')).data.id;
  expect((await site.settled(episodeId)).status).toBe('ready');
}, 120_000);
afterAll(() => site?.close());

const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(site.platform.database.db, query);

/** Orders `planId` and pays it as the card form does: the card to the sandbox's tokenizer, its token to /api/payment/pay. */
async function buy(token: string, planId: string): Promise<void> {
  const { data: order } = await site.call('POST', '/api/payment/order', { token, body: { planId } });
  const card = { number: cards.visa, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' };
  const tokenized = await fetch(`${site.url}/sandbox/v1/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ card }) });
  const paymentToken = ((await tokenized.json()) as { id: string }).id;
  const body = { orderId: order.id, paymentToken, email: 'viewer@example.com', firstName: 'Ada', lastName: 'Viewer' };
  const paid = await site.call('POST', '/api/payment/pay', { token, body, headers: { 'idempotency-key': randomUUID() } });
  expect(paid.data).toMatchObject({ orderId: order.id, status: 'succeeded' });
}

/** A registered member, signed out: its email, and its id. */
async function registeredMember(): Promise<{ email: string; id: string; token: string }> {
  const email = `member-${randomUUID()}@example.com`;
  const answer = await site.call('POST', '/api/user/register', { token: await site.guest(), body: { email, password: PASSWORD, confirmPassword: PASSWORD } });
  expect(answer.code).toBe(200);
  return { email, id: answer.data.id, token: answer.headers.get('x-user-token')! };
}

/** Logs `guestToken`'s guest in to the member with `email`; answers the member's new token once both services have applied the login. */
async function logIn(guestToken: string, email: string): Promise<{ token: string; eventId: string }> {
  const answer = await site.call('POST', '/api/user/login', { token: guestToken, body: { email, password: PASSWORD } });
  expect(answer.code).toBe(200);
  const [login] = await rows<{ event_id: string }>(sql`select event_id from platform.outbox where type = 'user.logged_in' and user_id = ${answer.data.id} order by id desc limit 1`);
  await eventually(async () => (await appliedBy(login!.event_id)).length === CONSUMERS.length, 20_000, 'the login to reach the unlock and payment services');
  return { token: answer.headers.get('x-user-token')!, eventId: login!.event_id };
}

const appliedBy = (eventId: string) =>
  rows<{ consumer: string }>(sql`select consumer from platform.processed_events where event_id = ${eventId} and consumer = any(${sql.param(CONSUMERS)}::text[])`);

/** What a viewer holds, as the site shows it. */
async function holdings(token: string) {
  const [user, unlocked, payments] = await Promise.all([
    site.call('GET', '/api/user', { token }),
    site.call('GET', '/api/video/unlocked', { token }),
    site.call('GET', '/api/payment', { token }),
  ]);
  return {
    coins: user.data.coins,
    bonusCoins: user.data.bonusCoins,
    vip: user.data.vip,
    unlocked: unlocked.data.items.map((item: { video: { id: string }; episodes: number[] }) => [item.video.id, item.episodes]),
    orders: payments.data.items.map((order: { planId: string; status: string }) => [order.planId, order.status]).sort(),
    subscription: payments.data.subscription,
  };
}

/**
 * Delivers a login to the merging consumers again, past their processed marks: what a lost mark or
 * an operator's replay would do. Each consumer's row is locked first, so a delivery under way finishes before.
 */
async function replay(eventId: string): Promise<void> {
  await site.platform.database.transaction(async (tx) => {
    const [event] = await queryRows<{ seq: string }>(tx, sql`select seq from platform.outbox where event_id = ${eventId}`);
    await tx.execute(sql`select consumer from platform.consumer_offsets where consumer = any(${sql.param(CONSUMERS)}::text[]) for update`);
    await tx.execute(sql`delete from platform.processed_events where event_id = ${eventId} and consumer = any(${sql.param(CONSUMERS)}::text[])`);
    await tx.execute(sql`update platform.consumer_offsets set seq = ${Number(event!.seq) - 1} where consumer = any(${sql.param(CONSUMERS)}::text[])`);
  });
  await eventually(async () => (await appliedBy(eventId)).length === CONSUMERS.length, 20_000, 'the replayed login to be applied');
}

describe('a guest who paid, then logs in to an existing account', () => {
  it('brings its coins, its unlock and its VIP to the member, and a replayed login changes nothing', async () => {
    const member = await registeredMember();
    const guest = await site.guest();
    await buy(guest, 'coins-500');
    expect((await site.call('POST', '/api/video/unlock', { token: guest, body: { episodeId } })).data).toEqual({ episodeId, balance: 520 });
    await buy(guest, 'vip-weekly');
    const bought = await holdings(guest);
    expect(bought).toMatchObject({ coins: 520, bonusCoins: 20, vip: { planId: 'vip-weekly', cancelAtPeriodEnd: false }, unlocked: [[videoId, [1]]] });

    const { token, eventId } = await logIn(guest, member.email);

    const expected = { ...bought, orders: [['coins-500', 'succeeded'], ['vip-weekly', 'succeeded']], subscription: { planId: 'vip-weekly', status: 'active', renewsAt: bought.vip.renewsAt, cancelAtPeriodEnd: false } };
    const vipOf = async (viewer: string) => (await site.call('GET', '/api/user', { token: viewer })).data.vip;
    await eventually(async () => (await vipOf(token)) && !(await vipOf(guest)), 10_000, "the guest's VIP to be the member's");
    expect(await holdings(token)).toEqual(expected);
    expect(await holdings(guest)).toEqual({ coins: 0, bonusCoins: 0, vip: null, unlocked: [], orders: [], subscription: null });
    const ledgerOf = (userId: string) => rows(sql`select reference from unlock.ledger where user_id = ${userId} order by id`);
    const ledger = await ledgerOf(member.id);

    await replay(eventId);

    expect(await holdings(token)).toEqual(expected);
    expect(await ledgerOf(member.id)).toEqual(ledger);
    for (const type of ['wallet.merged', 'purchases.merged']) expect(await rows(sql`select 1 from platform.outbox where type = ${type} and user_id = ${member.id}`)).toHaveLength(1);

    // The VIP is the member's to cancel now.
    expect((await site.call('POST', '/api/payment/cancel', { token, body: {} })).data).toMatchObject({ planId: 'vip-weekly', cancelAtPeriodEnd: true });
  });

  it("with a VIP of its own keeps one renewing VIP, the member's, lengthened by the guest's unused days", async () => {
    const member = await registeredMember();
    await buy(member.token, 'vip-monthly');
    const ownRenewsAt = Date.parse((await site.call('GET', '/api/user', { token: member.token })).data.vip.renewsAt);
    const guest = await site.guest();
    await buy(guest, 'vip-weekly');
    const guestRenewsAt = Date.parse((await site.call('GET', '/api/user', { token: guest })).data.vip.renewsAt);
    const loggingInAt = Date.now();

    const { token } = await logIn(guest, member.email);
    const appliedAt = Date.now();

    const { data: payments } = await site.call('GET', '/api/payment', { token });
    expect(payments.subscription).toMatchObject({ planId: 'vip-monthly', status: 'active', cancelAtPeriodEnd: false });
    const added = Date.parse(payments.subscription.renewsAt) - ownRenewsAt;
    expect(added).toBeGreaterThanOrEqual(guestRenewsAt - appliedAt - 1000);
    expect(added).toBeLessThanOrEqual(guestRenewsAt - loggingInAt);
    await eventually(async () => (await site.call('GET', '/api/user', { token })).data.vip.renewsAt === payments.subscription.renewsAt, 10_000, 'the longer VIP');
    expect(payments.items.map((order: { planId: string }) => order.planId).sort()).toEqual(['vip-monthly', 'vip-weekly']);
    expect((await site.call('GET', '/api/user', { token: guest })).data.vip).toBeNull();
    const live = await rows(sql`select plan_id from payment.subscriptions where user_id = ${member.id} and status in ('active', 'past_due')`);
    expect(live).toEqual([{ plan_id: 'vip-monthly' }]);
  });
});
