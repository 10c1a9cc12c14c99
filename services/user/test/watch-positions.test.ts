import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileMailer, createPostgresBus, queryRows, systemContext, type Database, type RequestContext } from '@cliffhanger/platform';
import { openMigratedDatabase, silentLogger, tempDir, testClock } from '@cliffhanger/platform/testing';
import type { VideoCard } from '@cliffhanger/catalog';
import { createUserService, userModule, type UserService } from '../src/index.ts';
import { createWatchPositions, HISTORY_EVENT_EVERY_MS } from '../src/watch-positions.ts';

// Heartbeats written behind (watch-positions.ts), on a real database, with the clock in the test's
// hands: no flush happens unless the test asks for one, so nothing here waits on a timer.
let database: Database;
const clock = testClock('2026-11-27T12:00:00Z');
let episodeLookups = 0;
const catalog = {
  cardsOf: async (ids: string[]) => new Map<string, VideoCard>(ids.map((id) => [id, { id, title: id, cover: '', tags: [], episodeCount: 3, playCount: 0 }])),
  episodeRef: async (episodeId: string) => {
    episodeLookups += 1;
    const match = /^(alpha|beta)-ep(\d)$/.exec(episodeId);
    return match ? { videoId: match[1]!, number: Number(match[2]) } : null;
  },
  episodeTerms: async () => null,
};
const standing = { standingOf: async () => ({ coins: 0, bonusCoins: 0, vip: null }) };
const newService = () =>
  createUserService({
    now: clock.now,
    database,
    bus: createPostgresBus(database, silentLogger),
    mailer: createFileMailer(tempDir('positions-mail-'), silentLogger),
    catalog,
    standing,
    logger: silentLogger,
    publicUrl: 'https://cliffhanger.example/',
    sessionIdleDays: 30,
  });
let users: UserService;

beforeAll(async () => {
  database = await openMigratedDatabase(userModule);
  users = newService();
});
afterAll(() => database?.close());

const as = (userId: string): RequestContext => ({ ...systemContext('test'), userId });
const later = clock.advance;
const storedPositions = (userId: string) =>
  queryRows<{ episode_id: string; position_seconds: number }>(database.db, sql`select episode_id, position_seconds from users.history where user_id = ${userId} order by video_id`);
const eventsOf = (userId: string) =>
  queryRows<{ data: { episodeId: string; positionSeconds: number } }>(
    database.db,
    sql`select data from platform.outbox where type = 'history.recorded' and user_id = ${userId} order by occurred_at, id`,
  );
const viewer = async () => (await users.currentUser(systemContext('test'), undefined)).user.id;

describe('heartbeats written behind', () => {
  it("a viewer's flush before a read waits for the interval's flush that took their beat and has not committed yet", async () => {
    const me = await viewer();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let first = true;
    // The database, its first transaction held at the gate: the interval's flush, its rows already taken from the buffer.
    const slow: Database = Object.assign(Object.create(database) as Database, {
      transaction: async <T,>(work: Parameters<Database['transaction']>[0]) => {
        if (first) {
          first = false;
          await gate;
        }
        return database.transaction(work) as Promise<T>;
      },
    });
    const positions = createWatchPositions({ database: slow, bus: createPostgresBus(database, silentLogger), now: clock.now });
    await positions.record(as(me), { userId: me, videoId: 'alpha', episodeId: 'alpha-ep2', episodeNumber: 2, positionSeconds: 42 }, false);
    const interval = positions.flush();
    let flushed = false;
    const mine = positions.flushViewer(me).then(() => (flushed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(flushed).toBe(false);
    open();
    await Promise.all([interval, mine]);
    expect(await storedPositions(me)).toEqual([{ episode_id: 'alpha-ep2', position_seconds: 42 }]);
  });

  it('viewers who leave while a write runs share the next transaction, each written before their answer', async () => {
    const [first, ...leaving] = await Promise.all(Array.from({ length: 6 }, viewer));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let transactions = 0;
    // The database, its first transaction held at the gate: a write running while the others leave.
    const counted: Database = Object.assign(Object.create(database) as Database, {
      transaction: async <T,>(work: Parameters<Database['transaction']>[0]) => {
        if ((transactions += 1) === 1) await gate;
        return database.transaction(work) as Promise<T>;
      },
    });
    const positions = createWatchPositions({ database: counted, bus: createPostgresBus(database, silentLogger), now: clock.now });
    const beat = (userId: string, positionSeconds: number) => ({ userId, videoId: 'beta', episodeId: 'beta-ep1', episodeNumber: 1, positionSeconds });
    const running = positions.record(as(first!), beat(first!, 1), true);
    while (transactions === 0) await new Promise((resolve) => setImmediate(resolve));
    const left = leaving.map((id, i) => positions.record(as(id), beat(id, 10 + i), true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    open();
    await Promise.all([running, ...left]);
    expect(transactions).toBe(2);
    for (const [i, id] of leaving.entries()) expect(await storedPositions(id)).toEqual([{ episode_id: 'beta-ep1', position_seconds: 10 + i }]);
    expect((await eventsOf(leaving[0]!)).map((event) => event.data.positionSeconds)).toEqual([10]);
  });

  it('a beat is held, not written, until the flush; the viewer reads their latest position at once all the same', async () => {
    const me = await viewer();
    for (const seconds of [5, 10, 15]) {
      await users.recordHistory(as(me), 'alpha-ep1', seconds);
      later(5_000);
    }
    expect(await storedPositions(me)).toEqual([]);
    // Reading one's own history (and a series page's resume point) writes what is held first.
    expect((await users.history(as(me), 1, 20)).items[0]).toMatchObject({ episode: { id: 'alpha-ep1' }, positionSeconds: 15 });
    await users.recordHistory(as(me), 'alpha-ep1', 20);
    expect(await users.viewerOf(me, 'alpha')).toMatchObject({ resume: { episodeId: 'alpha-ep1', positionSeconds: 20 } });
  });

  it('one flush writes every viewer held, the latest beat of each series', async () => {
    const many = await Promise.all(Array.from({ length: 40 }, viewer));
    for (const id of many) {
      await users.recordHistory(as(id), 'alpha-ep1', 30);
      await users.recordHistory(as(id), 'alpha-ep2', 7);
      await users.recordHistory(as(id), 'beta-ep1', 3);
    }
    expect(users.historyWaiting().positions).toBeGreaterThanOrEqual(80);
    await users.flushHistory();
    expect(users.historyWaiting()).toEqual({ positions: 0, events: 0 });
    for (const id of [many[0]!, many[39]!]) {
      expect(await storedPositions(id)).toEqual([
        { episode_id: 'alpha-ep2', position_seconds: 7 },
        { episode_id: 'beta-ep1', position_seconds: 3 },
      ]);
    }
  });

  it('history.recorded goes out when an episode starts, at most once a minute while it plays, and when the viewer leaves', async () => {
    const me = await viewer();
    // Two minutes of beats every 5 s, then the viewer leaves.
    for (let second = 0; second <= 120; second += 5) {
      await users.recordHistory(as(me), 'beta-ep2', second);
      later(5_000);
    }
    await users.recordHistory(as(me), 'beta-ep2', 123, true);
    // Leaving is written at once, without waiting for the flush.
    expect(await storedPositions(me)).toEqual([{ episode_id: 'beta-ep2', position_seconds: 123 }]);
    const positions = (await eventsOf(me)).map((event) => event.data.positionSeconds);
    expect(positions).toEqual([0, HISTORY_EVENT_EVERY_MS / 1000, (2 * HISTORY_EVENT_EVERY_MS) / 1000, 123]);
    // Coming back to it later is a start again.
    later(5_000);
    await users.recordHistory(as(me), 'beta-ep2', 124);
    await users.flushHistory();
    expect((await eventsOf(me)).map((event) => event.data.positionSeconds)).toEqual([...positions, 124]);
  });

  it('a write that fails keeps the positions for the next flush, behind any newer beat', async () => {
    const me = await viewer();
    await users.recordHistory(as(me), 'alpha-ep1', 40);
    await database.db.execute(sql`alter table users.history rename to history_away`);
    try {
      await expect(users.flushHistory()).rejects.toThrow();
    } finally {
      await database.db.execute(sql`alter table users.history_away rename to history`);
    }
    expect(users.historyWaiting().positions).toBeGreaterThanOrEqual(1);
    await users.flushHistory();
    expect(await storedPositions(me)).toEqual([{ episode_id: 'alpha-ep1', position_seconds: 40 }]);
    expect((await eventsOf(me)).map((event) => event.data.positionSeconds)).toEqual([40]);
  });

  it('asks the catalog about an episode once, not on every beat', async () => {
    const fresh = newService();
    const before = episodeLookups;
    for (let beat = 0; beat < 12; beat++) await fresh.recordHistory(as(await viewer()), 'beta-ep3', beat * 5);
    expect(episodeLookups - before).toBe(1);
    await expect(fresh.recordHistory(as(await viewer()), 'gamma-ep1', 1)).rejects.toMatchObject({ code: 404 });
    await fresh.flushHistory();
  });

  it('a viewer deleted before the flush is skipped, not a failure of everyone else\'s batch', async () => {
    const [gone, staying] = [await viewer(), await viewer()];
    await users.recordHistory(as(gone), 'alpha-ep1', 10);
    await users.recordHistory(as(staying), 'alpha-ep1', 11);
    await database.db.execute(sql`delete from users.users where id = ${gone}`);
    await users.flushHistory();
    expect(await storedPositions(staying)).toEqual([{ episode_id: 'alpha-ep1', position_seconds: 11 }]);
  });

  it('a guest who logs in brings the positions still held in memory to the member', async () => {
    const guest = await users.currentUser(systemContext('test'), undefined);
    const address = `positions${Date.now()}@example.com`;
    const member = await users.currentUser(systemContext('test'), undefined);
    await users.register(as(member.user.id), address, 'long enough 1');
    await users.recordHistory(as(guest.user.id), 'beta-ep1', 77);
    await users.login(as(guest.user.id), address, 'long enough 1');
    expect((await users.history(as(member.user.id), 1, 20)).items[0]).toMatchObject({ episode: { id: 'beta-ep1' }, positionSeconds: 77 });
  });
});
