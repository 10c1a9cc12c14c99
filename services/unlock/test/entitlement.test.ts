import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict } from '@cliffhanger/platform';
import { DAY_MS, episode, newUser, openUnlocks } from './fixture.ts';

let site: Awaited<ReturnType<typeof openUnlocks>>;
beforeAll(async () => {
  site = await openUnlocks();
});
afterAll(() => site.close());

describe('who may watch', () => {
  it('a free episode needs nothing: no login, no coins, no unlock', async () => {
    const free = episode('pilot', 3, 50, 3);
    const { userId, context } = newUser();
    expect(await site.unlocks.mayWatch(null, free)).toBe(true);
    expect(await site.unlocks.mayWatch(userId, free)).toBe(true);
    expect(await site.unlocks.unlockEpisode(context, userId, free)).toEqual({ episodeId: 'pilot-ep3', balance: 0 });
    expect(await site.unlocks.unlockedNumbers(userId, 'pilot')).toEqual([]);
    expect(await site.ledgerOf(userId)).toEqual([]);
  });

  it('a locked episode is watchable once unlocked, by that user only', async () => {
    const locked = episode('pilot', 4, 50, 3);
    const owner = newUser();
    const other = newUser();
    expect(await site.unlocks.mayWatch(null, locked)).toBe(false);
    expect(await site.unlocks.mayWatch(owner.userId, locked)).toBe(false);

    await site.unlocks.creditOrder(owner.context, { orderId: `o-${owner.userId}`, userId: owner.userId, coins: 60, bonusCoins: 0 });
    await site.unlocks.unlockEpisode(owner.context, owner.userId, locked);

    expect(await site.unlocks.mayWatch(owner.userId, locked)).toBe(true);
    expect(await site.unlocks.mayWatch(other.userId, locked)).toBe(false);
    expect(await site.unlocks.mayWatch(owner.userId, episode('pilot', 5, 50, 3))).toBe(false);
  });

  it('VIP watches every episode until activeUntil and not after', async () => {
    const { userId, context } = newUser();
    const activeUntil = new Date(site.clock.time.getTime() + 30 * DAY_MS);
    const finale = episode('saga', 80, 99, 5);
    await site.unlocks.applyVip(userId, { planId: 'vip-monthly', activeUntil, cancelAtPeriodEnd: true });

    expect(await site.unlocks.mayWatch(userId, finale)).toBe(true);
    expect((await site.unlocks.standingOf(userId)).vip).toEqual({ planId: 'vip-monthly', renewsAt: activeUntil.toISOString(), cancelAtPeriodEnd: true });
    // A VIP's unlock costs nothing and keeps nothing: the episode is theirs only while VIP lasts.
    expect(await site.unlocks.unlockEpisode(context, userId, finale)).toEqual({ episodeId: 'saga-ep80', balance: 0 });
    expect(await site.unlocks.unlockedNumbers(userId, 'saga')).toEqual([]);

    site.clock.time = new Date(activeUntil.getTime() - 1);
    expect(await site.unlocks.mayWatch(userId, finale)).toBe(true);
    site.clock.time = activeUntil;
    expect(await site.unlocks.mayWatch(userId, finale)).toBe(false);
    expect((await site.unlocks.standingOf(userId)).vip).toBeNull();
  });

  it('a VIP the payment service ends stops at once', async () => {
    const { userId } = newUser();
    const finale = episode('saga', 81, 99, 5);
    await site.unlocks.applyVip(userId, { planId: 'vip-monthly', activeUntil: new Date(site.clock.time.getTime() + DAY_MS), cancelAtPeriodEnd: false });
    expect(await site.unlocks.mayWatch(userId, finale)).toBe(true);
    await site.unlocks.applyVip(userId, null);
    expect(await site.unlocks.mayWatch(userId, finale)).toBe(false);
    expect((await site.unlocks.standingOf(userId)).vip).toBeNull();
  });
});

describe('unlocked episodes', () => {
  it('are listed per series, the latest unlock first, a page at a time', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 1000, bonusCoins: 0 });
    for (const [videoId, number] of [['alpha', 9], ['alpha', 7], ['beta', 8], ['gamma', 6], ['alpha', 8]] as const) {
      site.clock.advance(1000);
      await site.unlocks.unlockEpisode(context, userId, episode(videoId, number, 10));
    }

    expect(await site.unlocks.unlockedNumbers(userId, 'alpha')).toEqual([7, 8, 9]);
    expect(await site.unlocks.listUnlocked(userId, 1, 2)).toEqual({
      items: [
        { videoId: 'alpha', episodes: [7, 8, 9] },
        { videoId: 'gamma', episodes: [6] },
      ],
      page: 1,
      size: 2,
      hasMore: true,
    });
    expect(await site.unlocks.listUnlocked(userId, 2, 2)).toEqual({ items: [{ videoId: 'beta', episodes: [8] }], page: 2, size: 2, hasMore: false });
  });
});

describe('events', () => {
  it('an unlock and a credit are in platform.outbox, for the user they concern', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 40, bonusCoins: 10 });
    await site.unlocks.grantBonus(context, { userId, coins: 3, reference: `checkin:${userId}:d1`, kind: 'checkin' });
    await site.unlocks.unlockEpisode(context, userId, episode('event', 12, 25));

    expect(await site.eventsOf('coins.credited', userId)).toEqual([
      { data: { reference: `order:o-${userId}`, orderId: `o-${userId}`, kind: 'purchase', coins: 40, bonusCoins: 10, balance: 50 } },
      { data: { reference: `checkin:${userId}:d1`, kind: 'checkin', coins: 0, bonusCoins: 3, balance: 53 } },
    ]);
    expect(await site.eventsOf('episode.unlocked', userId)).toEqual([
      { data: { episodeId: 'event-ep12', videoId: 'event', priceCoins: 25, balance: 28, reference: `unlock:${userId}:event-ep12` } },
    ]);
  });
});

describe('episodes that do not play yet', () => {
  it('an episode planned, still transcoding or whose transcode failed is refused with 409, and no coins are taken', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 100, bonusCoins: 0 });

    const refusals = await Promise.all(
      (['planned', 'pending', 'failed'] as const).map((status, index) =>
        site.unlocks.unlockEpisode(context, userId, episode('unready', index + 2, 30, 1, status)).catch((error: unknown) => error),
      ),
    );

    expect(refusals.every((refusal) => refusal instanceof Conflict)).toBe(true);
    expect(refusals.map((refusal) => (refusal as Conflict).message)).toEqual([
      'This episode is still being prepared: it can be unlocked once it plays',
      'This episode is still being prepared: it can be unlocked once it plays',
      'This episode is not available, so it cannot be unlocked',
    ]);
    expect(await site.walletOf(userId)).toEqual({ paid_coins: 100, bonus_coins: 0 });
    expect((await site.ledgerOf(userId)).map((entry) => entry.kind)).toEqual(['purchase']);
    expect(await site.unlocks.unlockedNumbers(userId, 'unready')).toEqual([]);
    expect(await site.eventsOf('episode.unlocked', userId)).toEqual([]);
    // Once transcoded, the same episode unlocks as any other.
    expect(await site.unlocks.unlockEpisode(context, userId, episode('unready', 3, 30, 1))).toEqual({ episodeId: 'unready-ep3', balance: 70 });
  });
});
