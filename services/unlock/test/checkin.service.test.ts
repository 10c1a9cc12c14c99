import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict } from '@cliffhanger/platform';
import { zoneOrUtc } from '../src/calendar.ts';
import { DAY_MS, newUser, openUnlocks } from './fixture.ts';

// The check-in's rules on a real database (PGlite, or PostgreSQL under TEST_DATABASE_URL), with the clock the test moves.
let site: Awaited<ReturnType<typeof openUnlocks>>;
beforeAll(async () => {
  site = await openUnlocks({ bonusCoinDays: 30 });
});
afterAll(() => site.close());

const refusalOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);
const checkinsOf = async (userId: string) => (await site.ledgerOf(userId)).filter((entry) => entry.kind === 'checkin');

/** A fresh viewer at a fixed instant: 12:00 UTC is already the next day in Kiritimati (UTC+14), still 04:00 in Los Angeles. */
function viewerAt(instant: string) {
  site.clock.time = new Date(instant);
  return newUser();
}

describe('the daily check-in', () => {
  it('grows the bonus over 7 days, then pays the 7th day’s every day the streak goes on', async () => {
    const { userId, context } = viewerAt('2025-03-01T12:00:00Z');
    const answers = [];
    for (let day = 0; day < 9; day++) {
      answers.push(await site.unlocks.checkIn(context, userId, 'UTC'));
      site.clock.advance(DAY_MS);
    }

    expect(answers.map((answer) => answer.streak)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(answers.map((answer) => answer.coinsAwarded)).toEqual([5, 10, 15, 20, 25, 30, 50, 50, 50]);
    // Checked in at noon: the next day begins at midnight, but the next check-in opens 20 hours on.
    expect(answers[0]).toEqual({ day: '2025-03-01', streak: 1, coinsAwarded: 5, balance: 5, nextAt: '2025-03-02T08:00:00.000Z' });
    expect(answers.at(-1)).toMatchObject({ day: '2025-03-09', balance: 255 });
    expect((await checkinsOf(userId)).map((entry) => [entry.reference, entry.paid_delta, entry.bonus_delta])).toEqual(
      answers.map((answer) => [`checkin:${userId}:${answer.day}`, 0, answer.coinsAwarded]),
    );
    expect((await site.eventsOf('checkin.claimed', userId)).map((event) => event.data)).toEqual(
      answers.map(({ day, streak, coinsAwarded }) => ({ day, streak, coinsAwarded })),
    );
    expect(await site.unlocks.checkinStatus(userId, 'UTC')).toEqual({ checkedInToday: false, streak: 9, nextReward: 50, nextAt: '2025-03-10T12:00:00.000Z' });
  });

  it('starts the streak again after a missed day', async () => {
    const { userId, context } = viewerAt('2025-03-01T09:00:00Z');
    await site.unlocks.checkIn(context, userId, 'UTC');
    site.clock.advance(DAY_MS);
    await site.unlocks.checkIn(context, userId, 'UTC');

    site.clock.advance(DAY_MS);
    expect(await site.unlocks.checkinStatus(userId, 'UTC')).toMatchObject({ checkedInToday: false, streak: 2, nextReward: 15 });
    site.clock.advance(DAY_MS);
    expect(await site.unlocks.checkinStatus(userId, 'UTC')).toMatchObject({ checkedInToday: false, streak: 0, nextReward: 5 });
    expect(await site.unlocks.checkIn(context, userId, 'UTC')).toMatchObject({ day: '2025-03-04', streak: 1, coinsAwarded: 5, balance: 20 });
  });

  it('answers 409 to a second check-in the same day, and pays nothing for it', async () => {
    const { userId, context } = viewerAt('2025-03-01T00:00:00Z');
    await site.unlocks.checkIn(context, userId, 'UTC');
    site.clock.advance(DAY_MS - 1);

    const refusal = await refusalOf(site.unlocks.checkIn(context, userId, 'UTC'));
    expect(refusal).toBeInstanceOf(Conflict);
    expect(refusal).toMatchObject({ code: 409, message: 'You have already checked in today' });
    expect(await site.unlocks.checkinStatus(userId, 'UTC')).toEqual({ checkedInToday: true, streak: 1, nextReward: 10, nextAt: '2025-03-02T00:00:00.000Z' });
    expect(await checkinsOf(userId)).toHaveLength(1);
    expect(await site.eventsOf('coins.credited', userId)).toHaveLength(1);

    site.clock.advance(1);
    expect(await site.unlocks.checkIn(context, userId, 'UTC')).toMatchObject({ day: '2025-03-02', streak: 2 });
  });

  it('two check-ins at once pay once: one answers, the other is refused', async () => {
    const { userId, context } = viewerAt('2025-03-01T12:00:00Z');
    const outcomes = await Promise.allSettled([site.unlocks.checkIn(context, userId, 'UTC'), site.unlocks.checkIn(context, userId, 'UTC')]);

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []))).toEqual([expect.objectContaining({ code: 409 })]);
    expect(await checkinsOf(userId)).toHaveLength(1);
    expect(await site.walletOf(userId)).toEqual({ paid_coins: 0, bonus_coins: 5 });

    // A wallet that exists already: only its row lock keeps ten racing calls apart.
    site.clock.advance(DAY_MS);
    const many = await Promise.allSettled(Array.from({ length: 10 }, () => site.unlocks.checkIn(context, userId, 'UTC')));
    expect(many.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(await site.walletOf(userId)).toEqual({ paid_coins: 0, bonus_coins: 15 });
    expect(await site.eventsOf('checkin.claimed', userId)).toHaveLength(2);
  });

  it('pays bonus coins: counted in the balance beside paid coins, spendable, and lapsing after the bonus period', async () => {
    const { userId, context } = viewerAt('2025-03-01T12:00:00Z');
    await site.unlocks.creditOrder(context, { orderId: `o-${userId}`, userId, coins: 100, bonusCoins: 0 });

    expect(await site.unlocks.checkIn(context, userId, 'UTC')).toMatchObject({ coinsAwarded: 5, balance: 105 });
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 105, bonusCoins: 5 });
    expect(await site.eventsOf('coins.credited', userId)).toEqual([
      expect.anything(),
      { data: { reference: `checkin:${userId}:2025-03-01`, kind: 'checkin', coins: 0, bonusCoins: 5, balance: 105 } },
    ]);

    site.clock.advance(30 * DAY_MS);
    expect(await site.unlocks.standingOf(userId)).toMatchObject({ coins: 100, bonusCoins: 0 });
  });
});

describe('calendar days in the viewer’s time zone', () => {
  it('the same instant is a different day in Kiritimati and in Los Angeles', async () => {
    const east = viewerAt('2025-03-01T12:00:00Z');
    const west = newUser();

    expect(await site.unlocks.checkIn(east.context, east.userId, 'Pacific/Kiritimati')).toMatchObject({ day: '2025-03-02', nextAt: '2025-03-02T10:00:00.000Z' });
    expect(await site.unlocks.checkIn(west.context, west.userId, 'America/Los_Angeles')).toMatchObject({ day: '2025-03-01', nextAt: '2025-03-02T08:00:00.000Z' });
  });

  it('a viewer who checked in just before their midnight checks in again on their next day, 20 hours on', async () => {
    const { userId, context } = viewerAt('2025-03-02T07:59:00Z'); // 23:59 on 1 March in Los Angeles
    expect(await site.unlocks.checkIn(context, userId, 'America/Los_Angeles')).toMatchObject({ day: '2025-03-01', streak: 1, nextAt: '2025-03-03T03:59:00.000Z' });

    site.clock.advance(2 * 60_000); // 00:01 on 2 March in Los Angeles: a new day, but 2 minutes after the last check-in
    expect(await site.unlocks.checkinStatus(userId, 'America/Los_Angeles')).toEqual({ checkedInToday: true, streak: 1, nextReward: 10, nextAt: '2025-03-03T03:59:00.000Z' });
    expect(await refusalOf(site.unlocks.checkIn(context, userId, 'America/Los_Angeles'))).toMatchObject({ code: 409 });

    site.clock.time = new Date('2025-03-03T03:59:00Z'); // 19:59 on 2 March in Los Angeles
    expect(await site.unlocks.checkinStatus(userId, 'America/Los_Angeles')).toMatchObject({ checkedInToday: false, streak: 1, nextReward: 10 });
    expect(await site.unlocks.checkIn(context, userId, 'America/Los_Angeles')).toMatchObject({ day: '2025-03-02', streak: 2, coinsAwarded: 10, balance: 15 });
  });

  it('moving west after checking in for a later day claims no day twice', async () => {
    const { userId, context } = viewerAt('2025-03-01T12:00:00Z');
    await site.unlocks.checkIn(context, userId, 'Pacific/Kiritimati'); // 2 March there

    // Still 1 March in Los Angeles, and all of 2 March there too: both are claimed.
    expect(await site.unlocks.checkinStatus(userId, 'America/Los_Angeles')).toEqual({ checkedInToday: true, streak: 1, nextReward: 10, nextAt: '2025-03-03T08:00:00.000Z' });
    expect(await refusalOf(site.unlocks.checkIn(context, userId, 'America/Los_Angeles'))).toMatchObject({ code: 409 });
    site.clock.time = new Date('2025-03-03T07:59:59Z');
    expect(await refusalOf(site.unlocks.checkIn(context, userId, 'America/Los_Angeles'))).toMatchObject({ code: 409 });
    site.clock.time = new Date('2025-03-03T08:00:00Z');
    expect(await site.unlocks.checkIn(context, userId, 'America/Los_Angeles')).toMatchObject({ day: '2025-03-03', streak: 2 });
  });

  it('the next check-in opens when the next day begins, even when a clock change skips midnight', async () => {
    // Chile moved its clocks from 00:00 to 01:00 on 8 September 2024: that day began at 01:00 (-03), 04:00 UTC.
    const { userId, context } = viewerAt('2024-09-07T05:00:00Z'); // 01:00 on 7 September there, 23 hours before the next day
    expect(await site.unlocks.checkIn(context, userId, 'America/Santiago')).toMatchObject({ day: '2024-09-07', nextAt: '2024-09-08T04:00:00.000Z' });
  });

  it('an unknown or missing time zone counts days in UTC', () => {
    expect(zoneOrUtc('Mars/Olympus_Mons')).toBe('UTC');
    expect(zoneOrUtc('')).toBe('UTC');
    expect(zoneOrUtc(undefined)).toBe('UTC');
    expect(zoneOrUtc('x'.repeat(100))).toBe('UTC');
    expect(zoneOrUtc('asia/tokyo')).toBe('Asia/Tokyo');
  });
});

describe('at most once per 20 hours, whatever the time zone', () => {
  // At 11:30 UTC it is 23:30 on 28 February at UTC-12, 1 March in UTC and 01:30 on 2 March at UTC+14: three calendar days.
  const zones = { west: 'Etc/GMT+12', utc: 'UTC', east: 'Pacific/Kiritimati' };

  it('three check-ins in one second at UTC-12, UTC and UTC+14 pay once, in either order', async () => {
    for (const order of [[zones.west, zones.utc, zones.east], [zones.east, zones.utc, zones.west]]) {
      const { userId, context } = viewerAt('2025-03-01T11:30:00Z');
      const outcomes = [];
      for (const zone of order) {
        outcomes.push(await site.unlocks.checkIn(context, userId, zone).then((answer) => answer.coinsAwarded, (error: Conflict) => error.code));
        site.clock.advance(300);
      }

      expect(outcomes).toEqual([5, 409, 409]);
      expect(await checkinsOf(userId)).toHaveLength(1);
      expect(await site.walletOf(userId)).toEqual({ paid_coins: 0, bonus_coins: 5 });
      expect(await site.eventsOf('checkin.claimed', userId)).toHaveLength(1);
    }
  });

  it('says when the next one opens: 20 hours after the last, or the next day in the zone, whichever is later', async () => {
    const { userId, context } = viewerAt('2025-03-01T11:30:00Z');
    expect(await site.unlocks.checkIn(context, userId, zones.west)).toMatchObject({ day: '2025-02-28', nextAt: '2025-03-02T07:30:00.000Z' });

    // A later day in UTC and further east, but 20 hours have not passed: no zone opens it early.
    for (const zone of Object.values(zones)) {
      expect(await site.unlocks.checkinStatus(userId, zone)).toMatchObject({ checkedInToday: true, nextAt: '2025-03-02T07:30:00.000Z' });
    }
    site.clock.time = new Date('2025-03-02T07:29:59.999Z');
    expect(await refusalOf(site.unlocks.checkIn(context, userId, zones.east))).toMatchObject({
      code: 409,
      message: 'You have checked in already: the next check-in opens 20 hours after the last one',
    });

    site.clock.time = new Date('2025-03-02T07:30:00Z'); // 19:30 on 1 March at UTC-12: the streak's next day there
    expect(await site.unlocks.checkinStatus(userId, zones.west)).toEqual({ checkedInToday: false, streak: 1, nextReward: 10, nextAt: '2025-03-02T07:30:00.000Z' });
    expect(await site.unlocks.checkIn(context, userId, zones.west)).toMatchObject({ day: '2025-03-01', streak: 2, coinsAwarded: 10 });
    expect(await site.walletOf(userId)).toEqual({ paid_coins: 0, bonus_coins: 15 });
  });

  it('is held by the database: a check-in written less than 20 hours after the last, or before it, is refused', async () => {
    const { userId, context } = viewerAt('2025-03-01T11:30:00Z');
    await site.unlocks.checkIn(context, userId, zones.utc);
    const write = (day: string, at: string) =>
      refusalOf(site.database.db.execute(sql`insert into unlock.checkins (user_id, day, streak, coins, time_zone, checked_in_at) values (${userId}, ${day}, 2, 10, 'UTC', ${at})`));

    expect(await write('2025-03-02', '2025-03-01T12:30:00Z')).toBeInstanceOf(Error); // a day on in UTC+14, an hour on
    expect(await write('2025-03-02', '2025-03-02T07:29:59Z')).toBeInstanceOf(Error);
    expect(await write('2025-02-28', '2025-02-28T11:30:00Z')).toBeInstanceOf(Error); // a day before the last one
    expect(await write('2025-03-02', '2025-03-02T07:30:00Z')).toBeNull();
    expect(await site.rows(sql`select day::text as day from unlock.checkins where user_id = ${userId} order by day`)).toEqual([{ day: '2025-03-01' }, { day: '2025-03-02' }]);
  });
});
