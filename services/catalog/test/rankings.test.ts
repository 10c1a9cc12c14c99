import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, systemContext } from '@cliffhanger/platform';
import { sql } from 'drizzle-orm';
import type { RankingSection } from '../src/rankings.ts';
import { DAY, HOUR, openViewing, played, type Viewing } from './viewing.ts';

// Rankings kept from events: plays published through the real bus at chosen times, read back
// against an injected clock.
let viewing: Viewing;
// A fixed "now" at 12:30 UTC, so that hours and days fall where the tests say.
const now = new Date(Math.floor(Date.now() / DAY) * DAY + 12.5 * HOUR);
const ago = (ms: number) => new Date(now.getTime() - ms);
const later = (ms: number) => new Date(now.getTime() + ms);

const as = (userId: string | null) => ({ ...systemContext('test'), userId });
const ids = async (section: RankingSection, clock = now, userId: string | null = null, page = 1, size = 20) =>
  (await viewing.rankings(clock).page(as(userId), section, page, size)).items.map((card) => card.id);

beforeAll(async () => {
  viewing = await openViewing();
  for (const id of ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot']) await viewing.series(id, { tags: ['Romance'] });
  // Created last, without episodes: not listed anywhere.
  await viewing.admin.createSeries({ id: 'empty-shell', title: 'Empty Shell', tags: ['Romance'] });
});
afterAll(() => viewing?.close());

describe('rankings kept from events', () => {
  it('"top" ranks the series most played in the last 7 days, counting a viewer once a day per episode', async () => {
    await viewing.publish(
      // alpha: three viewers an hour ago, one of them twice (one play).
      played('u1', 'alpha-ep1', ago(HOUR)),
      played('u1', 'alpha-ep1', ago(HOUR - 60_000), 40),
      played('u2', 'alpha-ep1', ago(HOUR)),
      played('u3', 'alpha-ep1', ago(2 * HOUR)),
      // bravo: two viewers two days ago.
      played('u1', 'bravo-ep1', ago(2 * DAY)),
      played('u2', 'bravo-ep1', ago(2 * DAY)),
      // charlie: five viewers eight days ago, out of the window.
      ...['u1', 'u2', 'u3', 'u4', 'u5'].map((user) => played(user, 'charlie-ep1', ago(8 * DAY))),
    );
    expect(await ids('top')).toEqual(['alpha', 'bravo']);
    // The window moves with the clock: five days on, bravo's plays are a week old; a week on, alpha's too.
    expect(await ids('top', later(5 * DAY + 12 * HOUR))).toEqual(['alpha']);
    expect(await ids('top', later(7 * DAY))).toEqual([]);
    // Plays after the clock's hour do not count yet.
    expect(await ids('top', ago(DAY))).toEqual(['bravo']);
  });

  it('"trending" ranks the plays rising fastest: the last 24 hours against the 24 before', async () => {
    const day = 20 * DAY;
    const before = (ms: number) => ago(day + ms);
    await viewing.publish(
      // delta: big but falling (4 then 1), not trending.
      ...['t1', 't2', 't3', 't4'].map((user) => played(user, 'delta-ep1', before(30 * HOUR))),
      played('t1', 'delta-ep1', before(HOUR)),
      // echo: from nothing to two.
      played('t1', 'echo-ep1', before(2 * HOUR)),
      played('t2', 'echo-ep1', before(3 * HOUR)),
      // foxtrot: from one to four, the fastest rise.
      played('t1', 'foxtrot-ep1', before(40 * HOUR)),
      ...['t1', 't2', 't3', 't4'].map((user) => played(user, 'foxtrot-ep1', before(5 * HOUR))),
    );
    expect(await ids('trending', ago(day))).toEqual(['foxtrot', 'echo']);
    // A day later what rose is the "before" of the new window, and nothing rose since.
    expect(await ids('trending', ago(day - DAY))).toEqual([]);
    // Those plays are three weeks old: today's top does not see them.
    expect(await ids('top')).toEqual(['alpha', 'bravo']);
  });

  it('counts the plays of one delivery together: its count and hours, and drops the hours no ranking reads once a new hour opens', async () => {
    await viewing.publish(...['h1', 'h2'].map((user) => played(user, 'delta-ep2', ago(9 * DAY))));
    const playCount = async () => (await queryRows<{ n: number }>(viewing.database.db, sql`select play_count::int as n from catalog.videos where id = 'delta'`))[0]!.n;
    const before = await playCount();
    // One delivery: three viewers in this hour, one of them twice (one play); the hour it opens drops the old one.
    await viewing.publish(
      played('h1', 'delta-ep2', ago(10 * 60_000)),
      played('h2', 'delta-ep2', ago(9 * 60_000)),
      played('h2', 'delta-ep2', ago(8 * 60_000), 30),
      played('h3', 'delta-ep2', ago(7 * 60_000)),
    );
    const [kept] = await queryRows<{ hours: { hour: string; plays: number }[]; count: number }>(viewing.database.db, sql`
      select (select json_agg(json_build_object('hour', to_char(hour at time zone 'UTC', 'DD HH24'), 'plays', plays) order by hour)
                from catalog.play_hours where video_id = 'delta' and hour > ${ago(8 * DAY).toISOString()}::timestamptz) as hours,
             (select count(*)::int from catalog.play_hours where video_id = 'delta' and hour <= ${ago(8 * DAY).toISOString()}::timestamptz) as count`);
    const hourOf = (time: Date) => `${String(time.getUTCDate()).padStart(2, '0')} ${String(time.getUTCHours()).padStart(2, '0')}`;
    expect(kept).toEqual({ hours: [{ hour: hourOf(now), plays: 3 }], count: 0 });
    expect(await playCount()).toBe(before + 3);
  });

  it('"new" lists the newest listed series first', async () => {
    expect(await ids('new')).toEqual(['foxtrot', 'echo', 'delta', 'charlie', 'bravo', 'alpha']);
  });

  it('pages through a ranking and says when there is no more', async () => {
    const first = await viewing.rankings(now).page(as(null), 'new', 1, 4);
    const second = await viewing.rankings(now).page(as(null), 'new', 2, 4);
    expect([first.items.length, first.hasMore, second.items.length, second.hasMore]).toEqual([4, true, 2, false]);
    expect(first.items[0]).toMatchObject({ id: 'foxtrot', title: 'Series foxtrot', tags: ['Romance'], episodeCount: 3 });
    expect((await viewing.rankings(now).page(as(null), 'new', 1_000_000_000, 50)).items).toEqual([]);
  });

  it('"continue" is the caller\'s own history, the latest first, and empty for anonymous callers', async () => {
    await viewing.publish(
      played('viewer', 'alpha-ep1', ago(3 * HOUR)),
      played('viewer', 'bravo-ep2', ago(2 * HOUR)),
      played('viewer', 'charlie-ep1', ago(HOUR)),
      played('viewer', 'alpha-ep2', ago(30 * 60_000)),
      // A record arriving late, older than what is known, changes nothing.
      played('viewer', 'charlie-ep1', ago(5 * HOUR)),
    );
    expect(await ids('continue', now, 'viewer')).toEqual(['alpha', 'charlie', 'bravo']);
    expect(await ids('continue', now, 'someone-else')).toEqual([]);
    expect(await ids('continue', now, null)).toEqual([]);
  });

  it("likes a series' tags once, the first time its viewer plays it, and counts each play once a day", async () => {
    await viewing.publish(
      played('taster', 'echo-ep1', ago(3 * HOUR)),
      played('taster', 'echo-ep1', ago(2 * HOUR)),
      played('taster', 'echo-ep2', ago(HOUR)),
      // Late and older than what is known: neither a place nor a new liking.
      played('taster', 'echo-ep1', ago(4 * HOUR)),
    );
    const kept = async () =>
      (await queryRows<{ liking: number; days: number; place: string }>(viewing.database.db, sql`
        select (select sum(weight)::int from catalog.viewer_tags where user_id = 'taster') as liking,
               (select count(*)::int from catalog.play_days where user_id = 'taster') as days,
               (select episode_id from catalog.viewer_series where user_id = 'taster') as place`))[0];
    expect(await kept()).toEqual({ liking: 1, days: 2, place: 'echo-ep2' });
    // Played again in a later delivery: a new place, not a new liking.
    await viewing.publish(played('taster', 'echo-ep3', ago(30 * 60_000)));
    expect(await kept()).toEqual({ liking: 1, days: 3, place: 'echo-ep3' });
  });

  it('"continue" of a guest who logs in moves to the member, the newer place winning', async () => {
    await viewing.publish(
      played('member', 'delta-ep1', ago(10 * HOUR)),
      played('member', 'echo-ep1', ago(9 * HOUR)),
      played('guest', 'delta-ep2', ago(HOUR)),
      played('guest', 'foxtrot-ep1', ago(20 * HOUR)),
      { type: 'user.logged_in', userId: 'member', data: { mergedGuestId: 'guest' }, at: now },
    );
    expect(await ids('continue', now, 'member')).toEqual(['delta', 'echo', 'foxtrot']);
    expect(await ids('continue', now, 'guest')).toEqual([]);
  });
});
