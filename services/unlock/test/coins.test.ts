import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, PaymentRequired } from '@cliffhanger/platform';
import { DAY_MS, episode, newUser, openUnlocks } from './fixture.ts';

let site: Awaited<ReturnType<typeof openUnlocks>>;
beforeAll(async () => {
  site = await openUnlocks({ bonusCoinDays: 30 });
});
afterAll(() => site.close());

describe('spending coins', () => {
  it('100 unlocks at once of episodes priced 10 from 100 coins make exactly 10 unlocks and leave 0', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 100, bonusCoins: 0 });

    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => site.unlocks.unlockEpisode(context, userId, episode('rush', i + 1, 10))),
    );

    const unlocked = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(unlocked).toHaveLength(10);
    expect(refused).toHaveLength(90);
    expect(refused.every((error) => error instanceof PaymentRequired)).toBe(true);
    expect((await site.unlocks.standingOf(userId)).coins).toBe(0);
    expect(await site.unlocks.unlockedNumbers(userId, 'rush')).toHaveLength(10);
    expect(await site.walletOf(userId)).toEqual({ paid_coins: 0, bonus_coins: 0 });
    expect((await site.ledgerOf(userId)).filter((entry) => entry.kind === 'unlock')).toHaveLength(10);
  });

  it('unlocking the same episode twice charges once', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 100, bonusCoins: 0 });
    const terms = episode('twice', 7, 30);

    expect(await site.unlocks.unlockEpisode(context, userId, terms)).toEqual({ episodeId: 'twice-ep7', balance: 70 });
    expect(await site.unlocks.unlockEpisode(context, userId, terms)).toEqual({ episodeId: 'twice-ep7', balance: 70 });
    const again = await Promise.all([1, 2, 3].map(() => site.unlocks.unlockEpisode(context, userId, terms)));
    expect(again.map((answer) => answer.balance)).toEqual([70, 70, 70]);

    expect((await site.ledgerOf(userId)).map((entry) => [entry.kind, entry.paid_delta])).toEqual([
      ['purchase', 100],
      ['unlock', -30],
    ]);
    expect(await site.eventsOf('episode.unlocked', userId)).toHaveLength(1);
  });

  it('not enough coins answers 402 with the price and the balance, and unlocks nothing', async () => {
    const { userId, context } = newUser();
    await site.unlocks.grantBonus(context, { userId, coins: 5, reference: `promo:${userId}`, kind: 'bonus' });
    const terms = episode('dear', 3, 10);

    const refusal = await site.unlocks.unlockEpisode(context, userId, terms).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PaymentRequired);
    expect(refusal).toMatchObject({ code: 402, message: 'Not enough coins', data: { priceCoins: 10, balance: 5 } });
    expect(await site.unlocks.mayWatch(userId, terms)).toBe(false);
    expect((await site.unlocks.standingOf(userId)).coins).toBe(5);
    expect((await site.ledgerOf(userId)).map((entry) => entry.kind)).toEqual(['bonus']);
  });
});

describe('bonus coins', () => {
  it('are spent before paid coins, the lot that lapses first first', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 100, bonusCoins: 10 });
    site.clock.advance(10 * DAY_MS);
    await site.unlocks.grantBonus(context, { userId, coins: 10, reference: `checkin:${userId}:day2`, kind: 'checkin' });

    expect(await site.unlocks.unlockEpisode(context, userId, episode('first', 9, 15))).toEqual({ episodeId: 'first-ep9', balance: 105 });
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 105, bonusCoins: 5 });
    expect(await site.walletOf(userId)).toEqual({ paid_coins: 100, bonus_coins: 5 });

    // The order's lot (lapsing first) is empty, so its lapse takes nothing; the check-in's 5 remain.
    site.clock.advance(25 * DAY_MS);
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 105, bonusCoins: 5 });
  });

  it('expire on time, what is left of them leaving through an expiry entry in the ledger', async () => {
    const { userId, context } = newUser();
    const bornAt = site.clock.time.getTime();
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 50, bonusCoins: 20 });
    await site.unlocks.unlockEpisode(context, userId, episode('lapse', 2, 5));
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 65, bonusCoins: 15 });

    const expiries = async () => (await site.ledgerOf(userId)).filter((entry) => entry.kind === 'expiry');

    site.clock.time = new Date(bornAt + 30 * DAY_MS - 1);
    await site.unlocks.expireBonusCoins();
    expect(await expiries()).toEqual([]);
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 65, bonusCoins: 15 });

    site.clock.time = new Date(bornAt + 30 * DAY_MS);
    // Lapsed coins cannot be spent even before the sweep writes them off.
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 50, bonusCoins: 0 });
    await site.unlocks.expireBonusCoins();
    await site.unlocks.expireBonusCoins();

    const entries = await site.ledgerOf(userId);
    expect(entries.at(-1)).toMatchObject({ kind: 'expiry', reference: expect.stringMatching(/^expiry:\d+$/), paid_delta: 0, bonus_delta: -15, paid_balance: 50, bonus_balance: 0 });
    expect(entries.filter((entry) => entry.kind === 'expiry')).toHaveLength(1);
    expect(await site.walletOf(userId)).toEqual({ paid_coins: 50, bonus_coins: 0 });
  });

  it('last as many days as the service is told', async () => {
    const short = await openUnlocks({ bonusCoinDays: 7 });
    try {
      const { userId, context } = newUser();
      await short.unlocks.grantBonus(context, { userId, coins: 8, reference: `promo:${userId}`, kind: 'bonus' });
      short.clock.advance(7 * DAY_MS - 1);
      expect((await short.unlocks.standingOf(userId)).bonusCoins).toBe(8);
      short.clock.advance(1);
      expect((await short.unlocks.standingOf(userId)).bonusCoins).toBe(0);
      // A spend finds the lapsed lot gone: it is written off first, under the same lock.
      const refusal = await short.unlocks.unlockEpisode(context, userId, episode('week', 4, 8)).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: 402, data: { priceCoins: 8, balance: 0 } });
      expect(await short.unlocks.expireBonusCoins()).toBe(8);
      expect(await short.unlocks.expireBonusCoins()).toBe(0);
      expect(await short.walletOf(userId)).toEqual({ paid_coins: 0, bonus_coins: 0 });
    } finally {
      await short.close();
    }
  });
});

describe('credits from payments', () => {
  it('an order credited 20 times at once credits once', async () => {
    const { userId, context } = newUser();
    const order = { orderId: `o-${userId}`, userId, coins: 100, bonusCoins: 20 };
    // A wallet that already exists: only its row lock, not the insert of a new one, keeps the calls apart.
    await site.unlocks.grantBonus(context, { userId, coins: 1, reference: `welcome:${userId}`, kind: 'bonus' });

    const answers = await Promise.all(Array.from({ length: 20 }, () => site.unlocks.creditOrder(context, order)));

    expect(answers.filter((answer) => answer.credited)).toHaveLength(1);
    expect(answers.every((answer) => answer.balance === 121)).toBe(true);
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 121, bonusCoins: 21 });
    expect((await site.ledgerOf(userId)).slice(1)).toEqual([
      { kind: 'purchase', reference: `order:o-${userId}`, paid_delta: 100, bonus_delta: 20, paid_balance: 100, bonus_balance: 21 },
    ]);
    expect(await site.eventsOf('coins.credited', userId)).toEqual([
      { data: { reference: `welcome:${userId}`, kind: 'bonus', coins: 0, bonusCoins: 1, balance: 1 } },
      { data: { reference: `order:o-${userId}`, orderId: `o-${userId}`, kind: 'purchase', coins: 100, bonusCoins: 20, balance: 121 } },
    ]);
  });

  it('a bonus granted twice under one reference counts once', async () => {
    const { userId, context } = newUser();
    const grant = { userId, coins: 5, reference: `checkin:${userId}:2025-03-01`, kind: 'checkin' as const };
    expect(await site.unlocks.grantBonus(context, grant)).toEqual({ credited: true, balance: 5 });
    expect(await site.unlocks.grantBonus(context, grant)).toEqual({ credited: false, balance: 5 });
    expect((await site.ledgerOf(userId)).map((entry) => entry.kind)).toEqual(['checkin']);
  });

  it('a refund of spent coins revokes the latest unlocks they paid for, once, and the wallet never goes below zero', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `a-${userId}`, userId, coins: 100, bonusCoins: 20 });
    await site.unlocks.creditOrder(context, { orderId: `b-${userId}`, userId, coins: 50, bonusCoins: 0 });
    // 20 bonus coins of order a, then 60 paid coins; then 40 paid coins: 50 paid coins are left.
    await site.unlocks.unlockEpisode(context, userId, episode('first', 5, 80));
    site.clock.advance(1000);
    await site.unlocks.unlockEpisode(context, userId, episode('second', 5, 40));

    // Order a's 120 coins: the latest unlock (40) is revoked first, then 'first' (80): 170, less 120.
    const reversal = { orderId: `a-${userId}`, reference: `refund:a-${userId}`, paidCoins: 100, bonusCoins: 20 };
    expect(await site.unlocks.reverseOrder(context, reversal)).toEqual({ reversed: true, coinsTaken: 120, unlocksRevoked: 2, balance: 50 });
    expect(await site.unlocks.reverseOrder(context, reversal)).toEqual({ reversed: false, coinsTaken: 120, unlocksRevoked: 2, balance: 50 });
    expect(await site.unlocks.unlockedNumbers(userId, 'first')).toEqual([]);
    expect(await site.unlocks.unlockedNumbers(userId, 'second')).toEqual([]);
    // Order b's 50 coins are all there: nothing more is revoked.
    const whole = { orderId: `b-${userId}`, reference: `refund:b-${userId}`, paidCoins: 50, bonusCoins: 0 };
    expect(await site.unlocks.reverseOrder(context, whole)).toEqual({ reversed: true, coinsTaken: 50, unlocksRevoked: 0, balance: 0 });
    expect(await site.walletOf(userId)).toEqual({ paid_coins: 0, bonus_coins: 0 });
    expect((await site.ledgerOf(userId)).map((entry) => entry.kind)).toEqual(['purchase', 'purchase', 'unlock', 'unlock', 'revoke', 'revoke', 'refund', 'refund']);
    await expect(site.unlocks.reverseOrder(context, { ...whole, orderId: 'never-paid', reference: 'refund:never' })).rejects.toThrow(Conflict);
  });

  it('an episode a refund revoked can be unlocked again, each time a ledger entry and an event of its own', async () => {
    const { userId, context } = newUser();
    const terms = episode('again', 4, 30);
    for (const round of [1, 2]) {
      await site.unlocks.creditOrder(context, { orderId: `again-${round}-${userId}`, userId, coins: 30, bonusCoins: 0 });
      await site.unlocks.unlockEpisode(context, userId, terms);
      const reversal = { orderId: `again-${round}-${userId}`, reference: `refund:again-${round}-${userId}`, paidCoins: 30, bonusCoins: 0 };
      expect(await site.unlocks.reverseOrder(context, reversal)).toMatchObject({ reversed: true, unlocksRevoked: 1, balance: 0 });
    }
    await site.unlocks.creditOrder(context, { orderId: `again-3-${userId}`, userId, coins: 30, bonusCoins: 0 });
    expect(await site.unlocks.unlockEpisode(context, userId, terms)).toEqual({ episodeId: terms.episodeId, balance: 0 });
    expect(await site.unlocks.unlockedNumbers(userId, 'again')).toEqual([4]);

    const spent = (await site.ledgerOf(userId)).filter((entry) => entry.kind === 'unlock').map((entry) => entry.reference);
    expect(spent).toEqual([`unlock:${userId}:${terms.episodeId}`, `unlock:${userId}:${terms.episodeId}:1`, `unlock:${userId}:${terms.episodeId}:2`]);
    expect((await site.eventsOf('episode.unlocked', userId)).map((event) => event.data.reference)).toEqual(spent);
  });

  it('a dispute won gives back the suspended coins and unlocks what it revoked; restoring twice does nothing', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `d-${userId}`, userId, coins: 100, bonusCoins: 0 });
    await site.unlocks.unlockEpisode(context, userId, episode('kept', 5, 60));
    const reversal = { orderId: `d-${userId}`, reference: `dispute:dp-${userId}`, paidCoins: 100, bonusCoins: 0 };
    expect(await site.unlocks.reverseOrder(context, reversal)).toEqual({ reversed: true, coinsTaken: 100, unlocksRevoked: 1, balance: 0 });
    expect(await site.unlocks.restoreReversal(context, `d-${userId}`, reversal.reference)).toEqual({ restored: true, coinsReturned: 100, unlocksRestored: 1, balance: 40 });
    expect(await site.unlocks.restoreReversal(context, `d-${userId}`, reversal.reference)).toEqual({ restored: false, coinsReturned: 0, unlocksRestored: 0, balance: 40 });
    expect(await site.unlocks.unlockedNumbers(userId, 'kept')).toEqual([5]);
  });

  it('a refund of an unspent order takes all its coins and its bonus back', async () => {
    const { userId, context } = newUser();
    await site.unlocks.creditOrder(context, { orderId: `keep-${userId}`, userId, coins: 30, bonusCoins: 5 });
    await site.unlocks.creditOrder(context, { orderId: `undo-${userId}`, userId, coins: 100, bonusCoins: 20 });

    const reversal = { orderId: `undo-${userId}`, reference: `refund:undo-${userId}`, paidCoins: 100, bonusCoins: 20 };
    expect(await site.unlocks.reverseOrder(context, reversal)).toEqual({ reversed: true, coinsTaken: 120, unlocksRevoked: 0, balance: 35 });
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 35, bonusCoins: 5 });
    expect((await site.ledgerOf(userId)).at(-1)).toMatchObject({ kind: 'refund', reference: `refund:undo-${userId}`, paid_delta: -100, bonus_delta: -20 });
  });
});
