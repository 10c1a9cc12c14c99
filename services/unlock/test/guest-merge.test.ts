import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, Conflict, createPostgresBus, noAttribution, systemContext, type BusEvent } from '@cliffhanger/platform';
import { eventually, silentLogger } from '@cliffhanger/platform/testing';
import { subscribeUnlockConsumers } from '../src/events.ts';
import { DAY_MS, episode, newUser, openUnlocks } from './fixture.ts';

// A guest who paid (coins, unlocks, check-ins) and then logs in to an account brings its wallet.
let site: Awaited<ReturnType<typeof openUnlocks>>;
beforeAll(async () => {
  site = await openUnlocks({ bonusCoinDays: 30 });
});
afterAll(() => site.close());

/** user.logged_in as the user service emits it when a guest logs in to `memberId`. */
const loggedIn = (guestId: string, memberId: string): BusEvent => ({
  id: randomUUID(),
  type: 'user.logged_in',
  time: site.clock.time.toISOString(),
  userId: memberId,
  attribution: noAttribution,
  data: { mergedGuestId: guestId },
});

const merge = (event: BusEvent) => site.database.transaction((tx) => site.unlocks.mergeGuestWallet(tx, event));

const lotsOf = (userId: string) =>
  site.rows<{ coins: number; remaining: number; expires_at: string | Date }>(
    sql`select coins, remaining, expires_at from unlock.bonus_lots where user_id = ${userId} and remaining > 0 order by expires_at`,
  );
const expiries = async (userId: string) => (await lotsOf(userId)).map((lot) => [lot.remaining, new Date(lot.expires_at).toISOString()]);

describe("a guest's wallet on logging in", () => {
  it('moves its paid coins and bonus lots to the member, each lot keeping its expiry, and leaves the guest at zero', async () => {
    const guest = newUser();
    const member = newUser();
    const bornAt = site.clock.time.getTime();
    await site.unlocks.creditOrder(guest.context, { orderId: `o-${guest.userId}`, userId: guest.userId, coins: 100, bonusCoins: 20 });
    await site.unlocks.grantBonus(guest.context, { userId: guest.userId, coins: 3, reference: `short:${guest.userId}`, kind: 'bonus' });
    site.clock.advance(10 * DAY_MS);
    await site.unlocks.grantBonus(guest.context, { userId: guest.userId, coins: 5, reference: `promo:${guest.userId}`, kind: 'bonus' });
    await site.unlocks.creditOrder(member.context, { orderId: `o-${member.userId}`, userId: member.userId, coins: 50, bonusCoins: 0 });
    // The 3 coins of this lot lapse before the login: they are written off, not moved.
    await site.rows(sql`update unlock.bonus_lots set expires_at = ${new Date(site.clock.time.getTime() - 1000).toISOString()} where granted_by = ${`short:${guest.userId}`}`);

    const event = loggedIn(guest.userId, member.userId);
    expect(await merge(event)).toEqual({ guestId: guest.userId, coins: 100, bonusCoins: 25, unlocks: 0, checkins: 0, balance: 175, reference: `merge:${event.id}` });

    expect(await site.walletOf(guest.userId)).toEqual({ paid_coins: 0, bonus_coins: 0 });
    expect(await site.unlocks.standingOf(guest.userId)).toMatchObject({ coins: 0, bonusCoins: 0 });
    expect(await site.walletOf(member.userId)).toEqual({ paid_coins: 150, bonus_coins: 25 });
    expect(await expiries(member.userId)).toEqual([
      [20, new Date(bornAt + 30 * DAY_MS).toISOString()],
      [5, new Date(bornAt + 40 * DAY_MS).toISOString()],
    ]);
    expect((await site.ledgerOf(guest.userId)).slice(-2)).toMatchObject([
      { kind: 'expiry', paid_delta: 0, bonus_delta: -3 },
      { kind: 'merge_out', reference: `merge:${event.id}:out`, paid_delta: -100, bonus_delta: -25, paid_balance: 0, bonus_balance: 0 },
    ]);
    expect((await site.ledgerOf(member.userId)).at(-1)).toEqual({
      kind: 'merge_in',
      reference: `merge:${event.id}:in`,
      paid_delta: 100,
      bonus_delta: 25,
      paid_balance: 150,
      bonus_balance: 25,
    });
    expect((await site.eventsOf('wallet.merged', member.userId)).map((row) => row.data)).toEqual([
      { guestId: guest.userId, coins: 100, bonusCoins: 25, unlocks: 0, checkins: 0, balance: 175, reference: `merge:${event.id}` },
    ]);

    // The order's lot lapses 30 days after its credit, as it would have for the guest; the promotion's 10 days later.
    site.clock.advance(20 * DAY_MS + 1000);
    expect(await site.unlocks.standingOf(member.userId)).toMatchObject({ coins: 155, bonusCoins: 5 });
  });

  it("moves the guest's unlocks, but for episodes the member has unlocked too", async () => {
    const guest = newUser();
    const member = newUser();
    for (const { userId, context } of [guest, member]) {
      await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 100, bonusCoins: 0 });
      await site.unlocks.unlockEpisode(context, userId, episode('shared', 4, 10));
    }
    await site.unlocks.unlockEpisode(guest.context, guest.userId, episode('shared', 5, 10));

    expect(await merge(loggedIn(guest.userId, member.userId))).toMatchObject({ coins: 80, unlocks: 1 });

    expect(await site.unlocks.unlockedNumbers(member.userId, 'shared')).toEqual([4, 5]);
    expect(await site.unlocks.unlockedNumbers(guest.userId, 'shared')).toEqual([]);
    expect(await site.unlocks.mayWatch(member.userId, episode('shared', 5, 10))).toBe(true);
    expect(await site.walletOf(member.userId)).toEqual({ paid_coins: 170, bonus_coins: 0 });
  });

  it("moves the guest's check-ins but for days the member checked in too, so one person checks in once a day", async () => {
    const guest = newUser();
    const member = newUser();
    await site.unlocks.checkIn(member.context, member.userId, 'UTC');
    await site.unlocks.checkIn(guest.context, guest.userId, 'UTC');
    site.clock.advance(DAY_MS);
    await site.unlocks.checkIn(guest.context, guest.userId, 'UTC');

    expect(await merge(loggedIn(guest.userId, member.userId))).toMatchObject({ bonusCoins: 15, checkins: 1 });

    // The guest's check-in today is the member's, and continues the member's streak of yesterday.
    expect(await site.unlocks.checkinStatus(member.userId, 'UTC')).toMatchObject({ checkedInToday: true, streak: 2 });
    await expect(site.unlocks.checkIn(member.context, member.userId, 'UTC')).rejects.toBeInstanceOf(Conflict);
    expect(await site.rows(sql`select 1 from unlock.checkins where user_id = ${guest.userId}`)).toEqual([]);
    site.clock.advance(DAY_MS);
    expect(await site.unlocks.checkIn(member.context, member.userId, 'UTC')).toMatchObject({ streak: 3, coinsAwarded: 15 });
  });

  it('changes nothing when the same login is applied again, however often and at once', async () => {
    const guest = newUser();
    const member = newUser();
    await site.unlocks.creditOrder(guest.context, { orderId: `o-${guest.userId}`, userId: guest.userId, coins: 40, bonusCoins: 10 });
    await site.unlocks.unlockEpisode(guest.context, guest.userId, episode('again', 2, 10));
    const event = loggedIn(guest.userId, member.userId);
    // Bonus coins are spent first: the unlock took the 10 of them.
    expect(await merge(event)).toMatchObject({ coins: 40, bonusCoins: 0, unlocks: 1 });
    const ledger = [...(await site.ledgerOf(guest.userId)), ...(await site.ledgerOf(member.userId))];

    // Coins the guest got after that login stay with it: a replay is no new login.
    await site.unlocks.grantBonus(guest.context, { userId: guest.userId, coins: 5, reference: `later:${guest.userId}`, kind: 'bonus' });
    expect(await Promise.all([merge(event), merge(event), merge(event)])).toEqual([null, null, null]);

    expect([...(await site.ledgerOf(guest.userId)), ...(await site.ledgerOf(member.userId))]).toHaveLength(ledger.length + 1);
    expect(await site.walletOf(member.userId)).toEqual({ paid_coins: 40, bonus_coins: 0 });
    expect(await site.unlocks.unlockedNumbers(member.userId, 'again')).toEqual([2]);
    expect(await site.eventsOf('wallet.merged', member.userId)).toHaveLength(1);
  });
});

describe('coins bought by a guest who has logged in since', () => {
  it('a refund of its order takes them back from the member', async () => {
    const guest = newUser();
    const member = newUser();
    await site.unlocks.creditOrder(guest.context, { orderId: `r-${guest.userId}`, userId: guest.userId, coins: 100, bonusCoins: 10 });
    await site.unlocks.creditOrder(member.context, { orderId: `r-${member.userId}`, userId: member.userId, coins: 20, bonusCoins: 0 });
    await merge(loggedIn(guest.userId, member.userId));

    const reversal = { orderId: `r-${guest.userId}`, reference: `refund:r-${guest.userId}`, paidCoins: 100, bonusCoins: 10 };
    expect(await site.unlocks.reverseOrder(systemContext(), reversal)).toEqual({ reversed: true, coinsTaken: 110, unlocksRevoked: 0, balance: 20 });
    expect(await site.walletOf(member.userId)).toEqual({ paid_coins: 20, bonus_coins: 0 });
    expect(await site.walletOf(guest.userId)).toEqual({ paid_coins: 0, bonus_coins: 0 });
  });

  it("reach the member when the payment service credits the member for an order whose coins reached the guest after the login", async () => {
    const guest = newUser();
    const member = newUser();
    const earlier = { orderId: `e-${guest.userId}`, userId: guest.userId, coins: 10, bonusCoins: 0 };
    await site.unlocks.creditOrder(guest.context, earlier);
    await merge(loggedIn(guest.userId, member.userId));
    // A payment that settled while the guest logged in: its credit still named the guest.
    const late = { orderId: `l-${guest.userId}`, userId: guest.userId, coins: 60, bonusCoins: 6 };
    await site.unlocks.creditOrder(guest.context, late);
    expect(await site.walletOf(guest.userId)).toEqual({ paid_coins: 60, bonus_coins: 6 });

    // The payment service moved both orders to the member and tells this service again.
    expect(await site.unlocks.creditOrder(member.context, { ...earlier, userId: member.userId })).toEqual({ credited: false, balance: 10 });
    expect(await site.unlocks.creditOrder(member.context, { ...late, userId: member.userId })).toEqual({ credited: false, balance: 76 });
    expect(await site.unlocks.creditOrder(member.context, { ...late, userId: member.userId })).toEqual({ credited: false, balance: 76 });
    expect(await site.walletOf(guest.userId)).toEqual({ paid_coins: 0, bonus_coins: 0 });
    expect((await site.ledgerOf(member.userId)).map((entry) => entry.reference)).toEqual([
      expect.stringMatching(/^merge:.*:in$/),
      `merge:order:${late.orderId}:in`,
    ]);
    // Two merges of one guest into one member: each event names its own merge, so each ledger entry has one event.
    const references = (await site.eventsOf('wallet.merged', member.userId)).map((row) => (row.data as { reference: string }).reference);
    expect(references.map((reference) => `${reference}:in`)).toEqual((await site.ledgerOf(member.userId)).map((entry) => entry.reference));

    // Anyone else asking for those coins is refused, as before.
    const stranger = newUser();
    await expect(site.unlocks.creditOrder(stranger.context, { ...late, userId: stranger.userId })).rejects.toBeInstanceOf(Conflict);
  });
});

describe('the consumer of user.logged_in', () => {
  it('moves the wallet once, from the event the user service writes', async () => {
    const guest = newUser();
    const member = newUser();
    await site.unlocks.creditOrder(guest.context, { orderId: `c-${guest.userId}`, userId: guest.userId, coins: 70, bonusCoins: 0 });
    const bus = createPostgresBus(site.database, silentLogger, { pollMs: 50 });
    subscribeUnlockConsumers(bus, site.unlocks);
    await bus.start();
    try {
      // Kept in memory (standings.ts) from here: the merge, written in the bus's transaction, must void it.
      expect((await site.unlocks.standingOf(member.userId)).coins).toBe(0);
      const login = await site.database.transaction((tx) => appendEvent(tx, member.context, 'user.logged_in', { mergedGuestId: guest.userId }, member.userId));
      bus.nudge();
      await eventually(async () => (await site.walletOf(member.userId))?.paid_coins === 70, 20_000, 'the wallet to move');
      // The consumer says so right after its commit, well inside the 5 s the standing would otherwise be kept.
      await eventually(async () => (await site.unlocks.standingOf(member.userId)).coins === 70, 2_000, 'the member’s standing to show the coins');
      expect(await site.walletOf(guest.userId)).toEqual({ paid_coins: 0, bonus_coins: 0 });
      expect(await site.rows(sql`select consumer from platform.processed_events where event_id = ${login.id}`)).toEqual([{ consumer: 'unlock.guest-merge' }]);
    } finally {
      await bus.stop();
    }
  });
});
