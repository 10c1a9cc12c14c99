import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, createPostgresBus, createServiceApp, createServiceClient, systemContext, type ServiceClient } from '@cliffhanger/platform';
import { silentLogger, testConfig } from '@cliffhanger/platform/testing';
import { unlockClientOverHttp, unlockInternalRoutes, type UnlockClient } from '../src/client.ts';
import { unlockRoutes } from '../src/routes.ts';
import { catalogOf, DAY_MS, episode, newUser, openUnlocks } from './fixture.ts';

const INTERNAL_TOKEN = 'test-internal-token-0123456789';
const catalog = catalogOf([
  episode('night', 1, 10, 1),
  episode('night', 2, 10, 1),
  episode('night', 3, 10, 1),
  episode('dawn', 4, 10, 1),
  episode('dawn', 5, 10, 1, 'pending'),
  episode('dawn', 6, 10, 1, 'failed'),
]);

let site: Awaited<ReturnType<typeof openUnlocks>>;
let server: Server;
let http: ServiceClient;
let client: UnlockClient;

/** The unlock service running apart, as TARGET=unlock serves it: its public and internal routes behind the internal token. */
beforeAll(async () => {
  site = await openUnlocks();
  const { database } = site;
  const platform = { database, bus: createPostgresBus(database, silentLogger), metrics: createMetrics('unlock-test'), logger: silentLogger, lifecycle: { stopping: false }, config: testConfig() };
  const app = createServiceApp(platform, INTERNAL_TOKEN, [unlockRoutes(site.unlocks, catalog), unlockInternalRoutes(site.unlocks)]);
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  http = createServiceClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, INTERNAL_TOKEN);
  client = unlockClientOverHttp(http);
});
afterAll(async () => {
  server?.close();
  await site.close();
});

const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: { code: number; message: string; data: unknown }) => ({ code: error.code, data: error.data }));

describe('POST /api/video/unlock', () => {
  it('unlocks an episode and answers the balance; again, it charges nothing', async () => {
    const { userId, context } = newUser();
    await client.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 25, bonusCoins: 0 });
    expect(await http.post('/api/video/unlock', { episodeId: 'night-ep2' }, context)).toEqual({ episodeId: 'night-ep2', balance: 15 });
    expect(await http.post('/api/video/unlock', { episodeId: 'night-ep2' }, context)).toEqual({ episodeId: 'night-ep2', balance: 15 });
  });

  it('answers 402 with the price and the balance when coins are short', async () => {
    const { userId, context } = newUser();
    await client.grantBonus(context, { userId, coins: 4, reference: `promo:${userId}`, kind: 'bonus' });
    expect(await failureOf(http.post('/api/video/unlock', { episodeId: 'night-ep3' }, context))).toEqual({ code: 402, data: { priceCoins: 10, balance: 4 } });
  });

  it('answers 409 in the envelope for an episode not transcoded yet, or whose transcode failed, and takes no coins', async () => {
    const { userId, context } = newUser();
    await client.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 25, bonusCoins: 0 });
    const refusal = (episodeId: string) => http.post('/api/video/unlock', { episodeId }, context).then(() => null, (error: { code: number; message: string }) => [error.code, error.message]);

    expect(await refusal('dawn-ep5')).toEqual([409, 'This episode is still being prepared: it can be unlocked once it plays']);
    expect(await refusal('dawn-ep6')).toEqual([409, 'This episode is not available, so it cannot be unlocked']);
    expect(await client.standingOf(userId)).toMatchObject({ coins: 25 });
    expect(await client.unlockedNumbers(userId, 'dawn')).toEqual([]);
  });

  it('answers 404 for an unknown episode, 422 without one, and 401 without a user', async () => {
    const { context } = newUser();
    expect(await failureOf(http.post('/api/video/unlock', { episodeId: 'no-such-episode' }, context))).toMatchObject({ code: 404 });
    expect(await failureOf(http.post('/api/video/unlock', {}, context))).toEqual({ code: 422, data: { fields: { episodeId: 'Please choose an episode' } } });
    expect(await failureOf(http.post('/api/video/unlock', { episodeId: 'night-ep2' }, systemContext()))).toMatchObject({ code: 401 });
  });
});

describe('GET /api/video/unlocked', () => {
  it('lists each series as its card and the numbers unlocked in it', async () => {
    const { userId, context } = newUser();
    await client.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 100, bonusCoins: 0 });
    for (const episodeId of ['night-ep3', 'night-ep2']) await http.post('/api/video/unlock', { episodeId }, context);
    site.clock.advance(1000);
    await http.post('/api/video/unlock', { episodeId: 'dawn-ep4' }, context);

    const page = await http.get<{ items: { video: { id: string; title: string }; episodes: number[] }[]; hasMore: boolean }>('/api/video/unlocked', { page: '1', size: '10' }, context);
    expect(page.items.map((item) => [item.video.id, item.episodes])).toEqual([
      ['dawn', [4]],
      ['night', [2, 3]],
    ]);
    expect(page.items[0]!.video).toMatchObject({ id: 'dawn', title: 'Series dawn', tags: ['Romance'] });
    expect(page.hasMore).toBe(false);
    expect(await failureOf(http.get('/api/video/unlocked', { size: '51' }, context))).toMatchObject({ code: 422 });
  });
});

describe('the client over HTTP', () => {
  it('answers standing, entitlement and credits as the service does', async () => {
    const { userId, context } = newUser();
    const activeUntil = new Date(site.clock.time.getTime() + DAY_MS);
    const locked = episode('night', 3, 10, 1);

    expect(await client.mayWatch(null, episode('night', 1, 10, 1))).toBe(true);
    expect(await client.mayWatch(userId, locked)).toBe(false);
    expect(await client.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 30, bonusCoins: 6 })).toEqual({ credited: true, balance: 36 });
    expect(await client.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 30, bonusCoins: 6 })).toEqual({ credited: false, balance: 36 });
    await http.post('/api/video/unlock', { episodeId: 'night-ep3' }, context);
    expect(await client.mayWatch(userId, locked)).toBe(true);
    expect(await client.unlockedNumbers(userId, 'night')).toEqual([3]);

    await client.applyVip(userId, { planId: 'vip-weekly', activeUntil, cancelAtPeriodEnd: false });
    expect(await client.standingOf(userId)).toEqual({ coins: 26, bonusCoins: 0, vip: { planId: 'vip-weekly', renewsAt: activeUntil.toISOString(), cancelAtPeriodEnd: false } });
    await client.applyVip(userId, null);
    expect((await client.standingOf(userId)).vip).toBeNull();

    const reversal = { orderId: `o-${userId}`, reference: `refund:r-${userId}`, paidCoins: 30, bonusCoins: 6 };
    expect(await client.reverseOrder(context, reversal)).toEqual({ reversed: true, coinsTaken: 36, unlocksRevoked: 1, balance: 0 });
    expect(await client.mayWatch(userId, locked)).toBe(false);
    expect(await client.restoreReversal(context, `o-${userId}`, `refund:r-${userId}`)).toEqual({ restored: true, coinsReturned: 36, unlocksRestored: 1, balance: 26 });
    expect(await client.mayWatch(userId, locked)).toBe(true);
  });
});
