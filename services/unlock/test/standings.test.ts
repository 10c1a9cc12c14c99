import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresBus } from '@cliffhanger/platform';
import { silentLogger } from '@cliffhanger/platform/testing';
import { createUnlockService } from '../src/service.ts';
import { STANDING_CACHE_MS } from '../src/standings.ts';
import { DAY_MS, newUser, openUnlocks } from './fixture.ts';

// GET /api/user asks for the caller's coins and VIP on every page: they are answered from memory
// between changes, and no change of this process, nor a lapse, is ever answered late.
let site: Awaited<ReturnType<typeof openUnlocks>>;
beforeAll(async () => {
  site = await openUnlocks({ bonusCoinDays: 30 });
});
afterAll(() => site.close());
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('a viewer’s standing', () => {
  it('is read from the database once while nothing changes', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 40, bonusCoins: 5 });
    expect(await site.unlocks.standingOf(userId)).toEqual({ coins: 45, bonusCoins: 5, vip: null });

    const reads = vi.spyOn(site.database.db, 'select');
    for (let i = 0; i < 20; i++) expect(await site.unlocks.standingOf(userId)).toEqual({ coins: 45, bonusCoins: 5, vip: null });
    expect(reads).not.toHaveBeenCalled();
  });

  it('shows every change of this process at once: credits, unlocks, grants, VIP given and ended', async () => {
    const { userId, context } = newUser();
    expect((await site.unlocks.standingOf(userId)).coins).toBe(0);
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 30, bonusCoins: 0 });
    expect((await site.unlocks.standingOf(userId)).coins).toBe(30);
    await site.unlocks.unlockEpisode(context, userId, { episodeId: `${userId}-ep9`, videoId: userId, number: 9, freeEpisodes: 0, priceCoins: 10, status: 'ready' });
    expect((await site.unlocks.standingOf(userId)).coins).toBe(20);
    await site.unlocks.grantBonus(context, { userId, coins: 3, reference: `promo:${userId}`, kind: 'bonus' });
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 23, bonusCoins: 3 });

    const until = new Date(site.clock.time.getTime() + 7 * DAY_MS);
    await site.unlocks.applyVip(userId, { planId: 'weekly', activeUntil: until, cancelAtPeriodEnd: false });
    expect((await site.unlocks.standingOf(userId)).vip).toEqual({ planId: 'weekly', renewsAt: until.toISOString(), cancelAtPeriodEnd: false });
    await site.unlocks.applyVip(userId, null);
    expect((await site.unlocks.standingOf(userId)).vip).toBeNull();
  });

  it('never keeps a read that raced a change', async () => {
    const { userId, context } = newUser();
    for (let i = 1; i <= 15; i++) {
      const [, read] = await Promise.all([
        site.unlocks.grantBonus(context, { userId, coins: 1, reference: `race:${userId}:${i}`, kind: 'bonus' }),
        site.unlocks.standingOf(userId),
      ]);
      expect([i - 1, i]).toContain(read.coins);
      expect((await site.unlocks.standingOf(userId)).coins).toBe(i);
    }
  });

  it('is read again once a bonus lot lapses or a VIP ends, with no write in between', async () => {
    const { userId, context } = newUser();
    await site.unlocks.grantBonus(context, { userId, coins: 8, reference: `lapse:${userId}`, kind: 'bonus' });
    const vipUntil = new Date(site.clock.time.getTime() + 2 * DAY_MS);
    await site.unlocks.applyVip(userId, { planId: 'weekly', activeUntil: vipUntil, cancelAtPeriodEnd: true });
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 8, vip: { planId: 'weekly' } });

    site.clock.time = new Date(vipUntil.getTime());
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 8, vip: null });
    site.clock.advance(28 * DAY_MS);
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 0, bonusCoins: 0 });
  });

  it('sees another process’s change within STANDING_CACHE_MS', async () => {
    // A second replica of the service on the same database: its writes reach this one's memory only by expiry.
    const other = createUnlockService({ database: site.database, bus: createPostgresBus(site.database, silentLogger), now: site.clock.now });
    const { userId, context } = newUser();
    vi.useFakeTimers({ toFake: ['Date'] });
    expect((await site.unlocks.standingOf(userId)).coins).toBe(0);
    await other.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 25, bonusCoins: 0 });
    vi.setSystemTime(Date.now() + STANDING_CACHE_MS);
    expect((await site.unlocks.standingOf(userId)).coins).toBe(25);
  });
});
