import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendEvent,
  createPostgresBus,
  noAttribution,
  pruneOnce,
  queryRows,
  type Attribution,
  type BusEvent,
  type Database,
  type EventBus,
  type EventType,
} from '@cliffhanger/platform';
import { eventually, openMigratedDatabase, silentLogger } from '@cliffhanger/platform/testing';
import { analyticsModule } from '../src/index.ts';
import { quantileOf, startupBucketOf } from '../src/aggregates.ts';
import { subscribeAnalyticsConsumers } from '../src/events.ts';
import { createAnalyticsReports, type SummaryRow } from '../src/reports.ts';

// The consumers on a real database and a real bus (PGlite, or PostgreSQL in npm test's second pass):
// events go into the outbox as the services write them, the bus delivers them, the reports read
// what the consumers kept.
let database: Database;
let bus: EventBus;
beforeAll(async () => {
  database = await openMigratedDatabase(analyticsModule);
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
/** The first page of a new visit, as the storefront sends it. */
const landing = (params: Record<string, string> = {}) => hit('landing', { visit: randomUUID(), ...params });

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

async function rowOf(by: 'day' | 'clickId' | 'referrer' | 'campaign', key: string, model: 'first' | 'last' = 'last'): Promise<SummaryRow | undefined> {
  await applied();
  return (await reports().summary(by, model, around)).find((row) => row.key === key);
}
const dayTotals = async () => {
  await applied();
  const rows = await reports().summary('day', 'last', around);
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
/** Revenue gross and net over every day of the range. */
const moneyByDay = async () => {
  await applied();
  const rows = await reports().summary('day', 'last', around);
  return { revenue: rows.reduce((sum, row) => sum + row.revenue.amount, 0), net: rows.reduce((sum, row) => sum + row.revenueNet.amount, 0) };
};
/** `order.refunded` as the payment service writes it, under the order's attribution. */
const refund = (userId: string, orderId: string, refundId: string, amount: number, attribution: Partial<Attribution> = {}) =>
  publish(
    'order.refunded',
    { orderId, refundId, amount: { amount, currency: 'USD' }, refundedTotal: { amount, currency: 'USD' }, source: 'operator', full: false },
    userId,
    attribution,
  );
const unlock = (userId: string, attribution: Partial<Attribution> = {}) =>
  publish('episode.unlocked', { episodeId: 'locks-ep3', videoId: 'locks', priceCoins: 30, balance: 70 }, userId, attribution);

describe('the analyst aggregates', () => {
  it('counts an unlock made with an fbclid under that click id, and under the day', async () => {
    const before = await dayTotals();
    const viewer = user();
    await publish('statics.hit', landing(), viewer, { fbclid: 'fb-unlock-1' });
    await unlock(viewer, { fbclid: 'fb-unlock-1' });
    // An event without a click id of its own counts for the one its user came with.
    await unlock(viewer);
    await publish('statics.hit', landing(), user(), { ttclid: 'tt-only-7' });

    expect(await rowOf('clickId', 'fb-unlock-1')).toEqual({
      key: 'fb-unlock-1',
      visits: 1,
      landings: 1,
      pageViews: 1,
      videoViews: 0,
      plays: 0,
      unlocks: 2,
      orders: 0,
      revenue: { amount: 0, currency: 'USD' },
      revenueNet: { amount: 0, currency: 'USD' },
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

  it('reports revenue gross and net of refunds side by side: a refund lowers the net only, and counts once', async () => {
    const buyer = user();
    const orderId = randomUUID();
    const attribution = { referrerToken: 'ref-refunded', fbclid: 'fb-refunded' };
    await publish('order.created', { orderId, planId: 'coins-500', price: { amount: 499, currency: 'USD' } }, buyer, attribution);
    await publish('payment.succeeded', { orderId, paymentId: `pay-${orderId}`, amount: { amount: 499, currency: 'USD' } }, buyer, attribution);
    expect(await rowOf('referrer', 'ref-refunded')).toMatchObject({ orders: 1, revenue: { amount: 499, currency: 'USD' }, revenueNet: { amount: 499, currency: 'USD' } });
    const before = await moneyByDay();

    const refundId = randomUUID();
    await refund(buyer, orderId, refundId, 200, attribution);
    // The same refund announced again (an event replayed under a new id) takes nothing more.
    await refund(buyer, orderId, refundId, 200, attribution);

    for (const model of ['first', 'last'] as const) {
      expect(await rowOf('referrer', 'ref-refunded', model)).toMatchObject({ orders: 1, revenue: { amount: 499, currency: 'USD' }, revenueNet: { amount: 299, currency: 'USD' } });
      expect(await rowOf('clickId', 'fb-refunded', model)).toMatchObject({ revenue: { amount: 499 }, revenueNet: { amount: 299 } });
    }
    // By day, on the day of the refund (summed over the range, so a run across midnight holds).
    const after = await moneyByDay();
    expect(after.revenue - before.revenue).toBe(0);
    expect(before.net - after.net).toBe(200);
  });

  it("counts a user's later plays, orders and VIP under the campaign their landing named, each play and cancel once", async () => {
    const viewer = user();
    await publish('statics.hit', landing({ utm_campaign: 'spring-sale', lang: 'es' }), viewer);
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
      visits: 1,
      landings: 1,
      pageViews: 1,
      videoViews: 1,
      plays: 1,
      unlocks: 0,
      orders: 1,
      revenue: { amount: 999, currency: 'USD' },
      revenueNet: { amount: 999, currency: 'USD' },
      vipStarts: 1,
      vipCancels: 1,
    });
  });

  it('keeps the campaign of a guest who logs in to an account for what the account buys', async () => {
    const guest = user();
    const account = user();
    await publish('statics.hit', landing({ campaign: 'guest-campaign' }), guest);
    await publish('user.logged_in', { mergedGuestId: guest }, account);
    await order(account, 299);
    expect(await rowOf('campaign', 'guest-campaign')).toMatchObject({ landings: 1, orders: 1, revenue: { amount: 299 } });
  });

  it('counts the funnel: landing, video view, registration, first unlock or purchase, first purchase, each user once', async () => {
    await applied();
    const before = await reports().funnel(around);
    const [browser, viewer, buyer, unlocker, direct] = [user(), user(), user(), user(), user()];
    for (const someone of [browser, viewer, buyer, unlocker]) await publish('statics.hit', landing(), someone);
    await publish('statics.hit', landing(), browser);
    for (const someone of [viewer, buyer, unlocker]) await publish('statics.hit', hit('view_content'), someone);
    for (const someone of [buyer, unlocker, direct]) await publish('user.registered', { email: `${someone}@example.com`, wasGuest: true }, someone);
    await order(buyer, 199);
    await order(buyer, 199);
    await unlock(unlocker);
    // Converted without a landing of ours: not part of the funnel, which starts at the landing.
    await unlock(direct);
    await order(direct, 199);
    await applied();
    const after = await reports().funnel(around);
    const steps = ['landed', 'viewed', 'registered', 'converted', 'paid'] as const;
    expect(Object.fromEntries(steps.map((step) => [step, after[step] - before[step]]))).toEqual({ landed: 4, viewed: 3, registered: 2, converted: 2, paid: 1 });
    expect(await reports().funnel({ from: dayOf(2), to: dayOf(3) })).toEqual({ landed: 0, viewed: 0, registered: 0, converted: 0, paid: 0 });
  });

  it('counts nothing twice when the bus delivers every event again', async () => {
    const viewer = user();
    await publish('statics.hit', landing(), viewer, { fbclid: 'fb-replay' });
    await unlock(viewer, { fbclid: 'fb-replay' });
    await order(viewer, 700, { fbclid: 'fb-replay' });
    await refund(viewer, randomUUID(), randomUUID(), 300, { fbclid: 'fb-replay' });
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
    expect(before[0]).toMatchObject({ landings: 1, unlocks: 1, orders: 1, revenue: { amount: 700 }, revenueNet: { amount: 400 } });
  });
});

describe('honest counts', () => {
  it('counts a visit of four pages as one visit, one landing and four page views, even from a client that lands on every page', async () => {
    const viewer = user();
    const visit = randomUUID();
    await publish('statics.hit', hit('landing', { visit, utm_campaign: 'four-pages' }), viewer);
    for (const path of ['/search', '/videos/v1', '/shopping']) await publish('statics.hit', hit('page_view', { visit }, { path }), viewer);
    expect(await rowOf('campaign', 'four-pages')).toMatchObject({ visits: 1, landings: 1, pageViews: 4 });

    const careless = randomUUID();
    for (let page = 0; page < 4; page++) await publish('statics.hit', hit('landing', { visit: careless, utm_campaign: 'lands-always' }), user());
    expect(await rowOf('campaign', 'lands-always')).toMatchObject({ visits: 1, landings: 1, pageViews: 4 });
  });

  it('counts a visit whose landing hit was lost, and a page view without a visit as a page view only', async () => {
    const viewer = user();
    await publish('statics.hit', hit('page_view', { visit: randomUUID(), utm_campaign: 'lost-landing' }), viewer);
    await publish('statics.hit', hit('page_view', { utm_campaign: 'lost-landing' }), viewer);
    expect(await rowOf('campaign', 'lost-landing')).toMatchObject({ visits: 1, landings: 0, pageViews: 2 });
  });

  it('counts each new visit of a user as a landing, and an order under the campaign the utm fields named', async () => {
    const viewer = user();
    await publish('statics.hit', landing({ utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'utm-order' }), viewer);
    // The next visit (after 30 idle minutes, or a new campaign, as the storefront decides).
    await publish('statics.hit', landing(), viewer);
    await order(viewer, 450);
    expect(await rowOf('campaign', 'utm-order')).toMatchObject({ visits: 2, landings: 2, pageViews: 2, orders: 1, revenue: { amount: 450 } });
  });

  it('counts rebufferings, exits before the first frame and start failures of the player', async () => {
    const report = (params: Record<string, string>) => publish('statics.hit', hit('playback', params, { episodeId: 'qoe-ep2' }), user());
    await report({ startupMs: '400', rebufferCount: '3', rebufferMs: '900', watchMs: '9100' });
    await report({ watchMs: '0' });
    await report({ error: 'MEDIA_ERR_SRC_NOT_SUPPORTED' });
    await applied();
    expect((await reports().playback('episode', around)).find((row) => row.key === 'qoe-ep2')).toMatchObject({
      plays: 3,
      rebufferCount: 3,
      exitsBeforeStart: 1,
      startFailures: 1,
      errors: 1,
    });
  });
});

describe('attribution models', () => {
  it('credits a two-touch user to the first campaign under first touch and to the latest under last touch', async () => {
    const viewer = user();
    await publish('statics.hit', landing({ utm_campaign: 'touch-one' }), viewer, { fbclid: 'fb-touch-one' });
    await publish('statics.hit', landing({ utm_campaign: 'touch-two' }), viewer, { fbclid: 'fb-touch-two' });
    await order(viewer, 800);

    expect(await rowOf('campaign', 'touch-one', 'first')).toMatchObject({ landings: 2, orders: 1, revenue: { amount: 800 } });
    expect(await rowOf('campaign', 'touch-two', 'first')).toBeUndefined();
    expect(await rowOf('campaign', 'touch-one', 'last')).toMatchObject({ landings: 1, orders: 0, revenue: { amount: 0 } });
    expect(await rowOf('campaign', 'touch-two', 'last')).toMatchObject({ landings: 1, orders: 1, revenue: { amount: 800 } });
    expect(await rowOf('clickId', 'fb-touch-one', 'first')).toMatchObject({ orders: 1 });
    expect(await rowOf('clickId', 'fb-touch-two', 'last')).toMatchObject({ orders: 1 });
    // The day counts everything whatever the model.
    expect(await rowOf('day', dayOf(0), 'first')).toEqual(await rowOf('day', dayOf(0), 'last'));
  });
});

describe('applied once, for good', () => {
  it("attributes a guest's events to the account when the merge is applied before them", async () => {
    const guest = user();
    const account = user();
    // On Kafka the merge (topic user) may be applied before the guest's hits (topic statics).
    await publish('user.logged_in', { mergedGuestId: guest }, account);
    await publish('statics.hit', landing({ utm_campaign: 'merge-first' }), guest);
    await publish('statics.hit', hit('video_view', {}, { videoId: 'locks' }), guest);
    await order(account, 350);

    for (const model of ['first', 'last'] as const)
      expect(await rowOf('campaign', 'merge-first', model)).toMatchObject({ landings: 1, videoViews: 1, orders: 1, revenue: { amount: 350 } });
    const [funnel] = await queryRows<{ user_id: string; viewed: boolean; converted: boolean; paid: boolean }>(
      database.db,
      sql`select user_id, first_video_view_at is not null as viewed, first_converted_at is not null as converted, first_paid_at is not null as paid from analytics.funnel where user_id in (${guest}, ${account})`,
    );
    expect(funnel).toEqual({ user_id: account, viewed: true, converted: true, paid: true });
  });

  it("moves a guest's funnel steps into the account it logs in to, beside the account's own", async () => {
    const [guest, account] = [user(), user()];
    await publish('user.registered', { email: `${account}@example.com`, wasGuest: false }, account);
    await publish('statics.hit', landing(), account);
    await publish('statics.hit', landing(), guest);
    await publish('statics.hit', hit('view_content'), guest);
    await applied();
    await publish('user.logged_in', { mergedGuestId: guest }, account);
    await applied();
    const rows = await queryRows<{ user_id: string; landed: boolean; viewed: boolean; registered: boolean }>(
      database.db,
      sql`select user_id, landed_at is not null as landed, first_video_view_at is not null as viewed, registered_at is not null as registered
          from analytics.funnel where user_id in (${guest}, ${account})`,
    );
    expect(rows).toEqual([{ user_id: account, landed: true, viewed: true, registered: true }]);
  });

  it('keeps processed marks past RETENTION_EVENT_DAYS: an event delivered again after a week counts nothing', async () => {
    const viewer = user();
    await publish('statics.hit', landing({ utm_campaign: 'old-marks' }), viewer);
    await order(viewer, 600);
    const before = await rowOf('campaign', 'old-marks');
    expect(before).toMatchObject({ landings: 1, orders: 1, revenue: { amount: 600 } });

    // Ten days later the topics still hold the events (the outbox here stands in for them).
    await database.db.execute(sql`update platform.processed_events set processed_at = now() - interval '10 days' where consumer like 'analytics.%'`);
    const pruned = await pruneOnce(database, { eventDays: 7, markDays: 30, jobDays: 7 });
    expect(pruned?.processedEvents).toBe(0);
    await database.db.execute(sql`update platform.consumer_offsets set seq = 0 where consumer like 'analytics.%'`);
    bus.nudge();
    await eventually(async () => {
      const [behind] = await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from platform.consumer_offsets where consumer like 'analytics.%' and seq < (select max(seq) from platform.outbox)`,
      );
      return behind!.n === 0;
    }, 10_000, 'the consumers to catch up again');
    expect(await rowOf('campaign', 'old-marks')).toEqual(before);
  });
});

describe('playback quality', () => {
  it('reads startup p50 and p95, the rebuffer ratio and errors per episode and per rung', async () => {
    // Twenty plays whose startup times sit on the histogram's bounds: the percentiles are exact.
    const startups = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1_000, 1_250, 1_500, 1_750, 2_000, 2_500, 3_000, 4_000, 5_000, 6_000, 8_000];
    for (const [index, startupMs] of startups.entries()) {
      const error = index === 0 ? 'MEDIA_ERR_DECODE' : index === 1 ? '0' : '';
      const params = { startupMs: String(startupMs), rebufferMs: '100', watchMs: '9900', rebufferCount: '1', rung: index % 2 ? 'qoe-720p' : 'qoe-360p', error };
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
      rebufferCount: 20,
      // The report without a startup time: the viewer left before the first frame.
      exitsBeforeStart: 1,
      startFailures: 0,
      errors: 1,
    });
    const byRung = await reports().playback('rung', around);
    expect(byRung.filter((row) => row.key.startsWith('qoe-'))).toEqual([
      { key: 'qoe-360p', plays: 10, startupMsP50: 900, startupMsP95: 6_000, rebufferRatio: 0.01, rebufferCount: 10, exitsBeforeStart: 0, startFailures: 0, errors: 1 },
      { key: 'qoe-720p', plays: 10, startupMsP50: 1_000, startupMsP95: 8_000, rebufferRatio: 0.01, rebufferCount: 10, exitsBeforeStart: 0, startFailures: 0, errors: 0 },
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
