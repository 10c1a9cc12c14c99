import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendEvent,
  createPostgresBus,
  migrate,
  noAttribution,
  platformMigrations,
  queryRows,
  type Attribution,
  type BusEvent,
  type Database,
  type EventBus,
  type EventType,
} from '@cliffhanger/platform';
import { eventually, openTestDatabase, silentLogger } from '@cliffhanger/platform/testing';
import { quantileOf, startupBucketOf } from '../src/aggregates.ts';
import { subscribeAnalyticsConsumers } from '../src/events.ts';
import { analyticsMigrations } from '../src/index.ts';
import { createAnalyticsReports, type SummaryRow } from '../src/reports.ts';

// The consumers on a real database and a real bus (PGlite, or PostgreSQL in npm test's second pass):
// events go into the outbox as the services write them, the bus delivers them, the reports read
// what the consumers kept.
let database: Database;
let bus: EventBus;
beforeAll(async () => {
  database = await openTestDatabase();
  await migrate(database, 'platform', platformMigrations);
  await migrate(database, 'analytics', analyticsMigrations);
  bus = createPostgresBus(database, silentLogger, { pollMs: 50 });
  subscribeAnalyticsConsumers(bus, silentLogger);
  await bus.start();
});
afterAll(async () => {
  await bus?.stop();
  await database?.close();
});

const reports = () => createAnalyticsReports({ database });
const dayOf = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
// Events are stamped now: a range around today holds them even when the run crosses midnight UTC.
const around = { from: dayOf(-1), to: dayOf(1) };
const user = () => randomUUID();

let last: BusEvent | null = null;
async function publish(type: EventType, data: Record<string, unknown>, userId: string | null, attribution: Partial<Attribution> = {}): Promise<BusEvent> {
  const context = { requestId: 'test', userId, attribution: { ...noAttribution, ...attribution } };
  last = await database.transaction((tx) => appendEvent(tx, context, type, data, userId));
  bus.nudge();
  return last;
}
const hit = (event: string, params: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
  event,
  value: { amount: 0, currency: 'USD' },
  path: '/',
  params,
  ...extra,
});

/** Waits until both consumers have applied everything published so far. */
async function applied(): Promise<void> {
  if (!last) return;
  const id = last.id;
  await eventually(async () => {
    const rows = await queryRows<{ consumer: string }>(database.db, sql`select consumer from platform.processed_events where event_id = ${id}`);
    const consumers = new Set(rows.map((row) => row.consumer));
    // Every event reaches the aggregates; the playback consumer reads only statics.hit.
    return consumers.has('analytics.aggregates') && (last!.type !== 'statics.hit' || consumers.has('analytics.playback'));
  }, 10_000, `event ${id} applied`);
}

async function rowOf(by: 'day' | 'clickId' | 'referrer' | 'campaign', key: string): Promise<SummaryRow | undefined> {
  await applied();
  return (await reports().summary(by, around)).find((row) => row.key === key);
}
const dayTotals = async () => {
  await applied();
  const rows = await reports().summary('day', around);
  return rows.reduce((sum, row) => ({ unlocks: sum.unlocks + row.unlocks, orders: sum.orders + row.orders, revenue: sum.revenue + row.revenue.amount }), {
    unlocks: 0,
    orders: 0,
    revenue: 0,
  });
};

const order = async (userId: string, amount: number, attribution: Partial<Attribution> = {}, currency = 'USD') => {
  const orderId = randomUUID();
  await publish('order.created', { orderId, planId: 'coins-500', price: { amount, currency } }, userId, attribution);
  await publish('payment.succeeded', { orderId, paymentId: `pay-${orderId}`, amount: { amount, currency } }, userId, attribution);
};
const unlock = (userId: string, attribution: Partial<Attribution> = {}) =>
  publish('episode.unlocked', { episodeId: 'locks-ep3', videoId: 'locks', priceCoins: 30, balance: 70 }, userId, attribution);

describe('the analyst aggregates', () => {
  it('counts an unlock made with an fbclid under that click id, and under the day', async () => {
    const before = await dayTotals();
    const viewer = user();
    await publish('statics.hit', hit('landing'), viewer, { fbclid: 'fb-unlock-1' });
    await unlock(viewer, { fbclid: 'fb-unlock-1' });
    // An event without a click id of its own counts for the one its user came with.
    await unlock(viewer);
    await publish('statics.hit', hit('landing'), user(), { ttclid: 'tt-only-7' });

    expect(await rowOf('clickId', 'fb-unlock-1')).toEqual({
      key: 'fb-unlock-1',
      landings: 1,
      videoViews: 0,
      plays: 0,
      unlocks: 2,
      orders: 0,
      revenue: { amount: 0, currency: 'USD' },
      vipStarts: 0,
      vipCancels: 0,
    });
    expect(await rowOf('clickId', 'tt-only-7')).toMatchObject({ landings: 1 });
    expect((await dayTotals()).unlocks - before.unlocks).toBe(2);
  });

  it('sums revenue in minor units of USD, leaving out other currencies', async () => {
    const buyer = user();
    await order(buyer, 499, { referrerToken: 'ref-revenue' });
    await order(buyer, 1999, { referrerToken: 'ref-revenue' });
    await order(buyer, 900, { referrerToken: 'ref-revenue' }, 'EUR');
    expect(await rowOf('referrer', 'ref-revenue')).toMatchObject({ orders: 3, revenue: { amount: 2498, currency: 'USD' } });
  });

  it("counts a user's later plays, orders and VIP under the campaign their landing named, each play and cancel once", async () => {
    const viewer = user();
    await publish('statics.hit', hit('landing', { utm_campaign: 'spring-sale', lang: 'es' }), viewer);
    await publish('statics.hit', hit('video_view', {}, { videoId: 'locks' }), viewer);
    const play = { videoId: 'locks', episodeId: 'locks-ep1', episodeNumber: 1, positionSeconds: 5 };
    // Positions saved again the same day are the same play.
    await publish('history.recorded', play, viewer);
    await publish('history.recorded', { ...play, positionSeconds: 30 }, viewer);
    await order(viewer, 999);
    const subscription = { subscriptionId: randomUUID(), planId: 'vip-week', renewsAt: new Date().toISOString(), cancelAtPeriodEnd: false };
    await publish('subscription.started', subscription, viewer);
    await publish('subscription.canceled', { ...subscription, cancelAtPeriodEnd: true }, viewer);
    // An operator ending the subscription later tells of the same cancel.
    await publish('subscription.canceled', subscription, viewer);
    // Someone else's order is not the campaign's.
    await order(user(), 5000);

    expect(await rowOf('campaign', 'spring-sale')).toEqual({
      key: 'spring-sale',
      landings: 1,
      videoViews: 1,
      plays: 1,
      unlocks: 0,
      orders: 1,
      revenue: { amount: 999, currency: 'USD' },
      vipStarts: 1,
      vipCancels: 1,
    });
  });

  it('keeps the campaign of a guest who logs in to an account for what the account buys', async () => {
    const guest = user();
    const account = user();
    await publish('statics.hit', hit('page_view', { campaign: 'guest-campaign' }), guest);
    await publish('user.logged_in', { mergedGuestId: guest }, account);
    await order(account, 299);
    expect(await rowOf('campaign', 'guest-campaign')).toMatchObject({ landings: 1, orders: 1, revenue: { amount: 299 } });
  });

  it('counts the funnel: landing, then video view, then first unlock or purchase, each user once', async () => {
    await applied();
    const before = await reports().funnel(around);
    const [browser, viewer, buyer, unlocker, direct] = [user(), user(), user(), user(), user()];
    for (const someone of [browser, viewer, buyer, unlocker]) await publish('statics.hit', hit('landing'), someone);
    await publish('statics.hit', hit('landing'), browser);
    for (const someone of [viewer, buyer, unlocker]) await publish('statics.hit', hit('view_content'), someone);
    await order(buyer, 199);
    await order(buyer, 199);
    await unlock(unlocker);
    // Converted without a landing of ours: not part of the funnel, which starts at the landing.
    await unlock(direct);
    await applied();
    const after = await reports().funnel(around);
    expect({ landed: after.landed - before.landed, viewed: after.viewed - before.viewed, converted: after.converted - before.converted }).toEqual({
      landed: 4,
      viewed: 3,
      converted: 2,
    });
    expect(await reports().funnel({ from: dayOf(2), to: dayOf(3) })).toEqual({ landed: 0, viewed: 0, converted: 0 });
  });

  it('counts nothing twice when the bus delivers every event again', async () => {
    const viewer = user();
    await publish('statics.hit', hit('landing'), viewer, { fbclid: 'fb-replay' });
    await unlock(viewer, { fbclid: 'fb-replay' });
    await order(viewer, 700, { fbclid: 'fb-replay' });
    await publish('statics.hit', hit('playback', { startupMs: '300', rung: 'replay-rung' }), viewer);
    const rows = async () => [await rowOf('clickId', 'fb-replay'), await reports().playback('rung', around)];
    const totals = await dayTotals();
    const before = await rows();

    // As Kafka does after a rebalance: the consumers start over from the beginning of the log.
    await database.db.execute(sql`update platform.consumer_offsets set seq = 0 where consumer like 'analytics.%'`);
    bus.nudge();
    await eventually(async () => {
      const [behind] = await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from platform.consumer_offsets where consumer like 'analytics.%' and seq < (select max(seq) from platform.outbox)`,
      );
      return behind!.n === 0;
    }, 10_000, 'the consumers to catch up again');

    expect(await rows()).toEqual(before);
    expect(await dayTotals()).toEqual(totals);
    expect(before[0]).toMatchObject({ landings: 1, unlocks: 1, orders: 1, revenue: { amount: 700 } });
  });
});

describe('playback quality', () => {
  it('reads startup p50 and p95, the rebuffer ratio and errors per episode and per rung', async () => {
    // Twenty plays whose startup times sit on the histogram's bounds: the percentiles are exact.
    const startups = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1_000, 1_250, 1_500, 1_750, 2_000, 2_500, 3_000, 4_000, 5_000, 6_000, 8_000];
    for (const [index, startupMs] of startups.entries()) {
      const error = index === 0 ? 'MEDIA_ERR_DECODE' : index === 1 ? '0' : '';
      const params = { startupMs: String(startupMs), rebufferMs: '100', watchMs: '9900', rebuffers: '1', rung: index % 2 ? 'qoe-720p' : 'qoe-360p', error };
      await publish('statics.hit', hit('playback', params, { episodeId: 'qoe-ep1' }), user());
    }
    // A report without a startup time or watch time is a play, and no sample of either.
    await publish('statics.hit', hit('playback', { startupMs: 'soon', rebufferMs: '5000' }, { episodeId: 'qoe-ep1' }), user());
    await applied();

    const byEpisode = await reports().playback('episode', around);
    expect(byEpisode.find((row) => row.key === 'qoe-ep1')).toEqual({
      key: 'qoe-ep1',
      plays: 21,
      startupMsP50: 1_000,
      startupMsP95: 6_000,
      rebufferRatio: 0.01,
      errors: 1,
    });
    const byRung = await reports().playback('rung', around);
    expect(byRung.filter((row) => row.key.startsWith('qoe-'))).toEqual([
      { key: 'qoe-360p', plays: 10, startupMsP50: 900, startupMsP95: 6_000, rebufferRatio: 0.01, errors: 1 },
      { key: 'qoe-720p', plays: 10, startupMsP50: 1_000, startupMsP95: 8_000, rebufferRatio: 0.01, errors: 0 },
    ]);
  });

  it('places a startup time between bounds in the bucket above it, and reads no percentile of nothing', () => {
    expect(startupBucketOf(130)).toBe(200);
    expect(startupBucketOf(100)).toBe(100);
    expect(startupBucketOf(500_000)).toBe(60_000);
    expect(quantileOf([{ leMs: 200, samples: 3 }, { leMs: 100, samples: 1 }], 0.5)).toBe(200);
    expect(quantileOf([], 0.95)).toBeNull();
  });
});
