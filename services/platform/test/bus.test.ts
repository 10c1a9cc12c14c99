import { sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  appendEvent,
  appendEventBatch,
  createPostgresBus,
  defaultDeliveryPolicy,
  migrate,
  openPostgres,
  platformMigrations,
  queryRows,
  systemContext,
  tailOutboxEvents,
} from '../src/index.ts';
import { createScratchDatabase, eventually, openMigratedDatabase, realDatabaseUrl, silentLogger } from '../src/testing/index.ts';
import { busContract, fastDelivery } from './bus.contract.ts';

busContract(`postgres outbox on ${realDatabaseUrl ? 'PostgreSQL' : 'PGlite'}`, (database) =>
  createPostgresBus(database, silentLogger, { pollMs: 50, delivery: fastDelivery }),
);

describe('the default delivery policy', () => {
  it('retries for about twenty minutes, with waits that grow to five minutes and never come in step', () => {
    const waits = Array.from({ length: defaultDeliveryPolicy.maxAttempts - 1 }, (_, i) => defaultDeliveryPolicy.backoffMs(i + 1));
    const total = waits.reduce((sum, wait) => sum + wait, 0);
    expect(total).toBeGreaterThan(8 * 60_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(300_000);
    const samples = new Set(Array.from({ length: 20 }, () => defaultDeliveryPolicy.backoffMs(6)));
    expect(samples.size).toBeGreaterThan(1);
  });
});

describe('a consumer that waits long between looks (the embedded default)', () => {
  it('is sent round again at once by events numbered while it delivers others, so none waits for its next look', async () => {
    const database = await openMigratedDatabase();
    const bus = createPostgresBus(database, silentLogger, { pollMs: 20, idleMs: 120_000, delivery: fastDelivery });
    const seen: number[] = [];
    // On PostgreSQL the relay numbers events while the consumer's transaction is open (on PGlite,
    // one connection, it waits for it): there, a wake that came mid-delivery and was not kept left
    // the last events for the next look, two minutes on.
    bus.subscribe('slow', ['favorite.changed'], async (event) => {
      // Slow enough that the relay numbers the next events while this one is being applied.
      await new Promise((resolve) => setTimeout(resolve, 30));
      seen.push(Number((event.data as { videoId: string }).videoId.slice(1)));
    });
    await bus.start();
    const publish = (n: number) => database.transaction((tx) => appendEvent(tx, systemContext(), 'favorite.changed', { videoId: `v${n}`, favorite: true }, 'u1'));
    try {
      await publish(0);
      await eventually(() => seen.length === 1, 20_000, 'the first event');
      for (let n = 1; n <= 30; n++) {
        await publish(n);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Far inside the two minutes a missed wake would cost.
      await eventually(() => seen.length === 31, 40_000, 'every event');
      expect(seen).toEqual(Array.from({ length: 31 }, (_, n) => n));
    } finally {
      await bus.stop();
      await database.close();
    }
  });
});

describe('a consumer that keeps being woken (events arriving under load)', () => {
  it('delivers at most once per spacing, so the events of many relay runs go in one transaction, and misses none', async () => {
    const database = await openMigratedDatabase();
    const bus = createPostgresBus(database, silentLogger, { pollMs: 20, idleMs: 120_000, spacingMs: 200, delivery: fastDelivery });
    const seen: number[] = [];
    // When each delivery (one transaction, told apart by its executor) handed its first event.
    const deliveries = new Map<unknown, number>();
    bus.subscribe('spaced', ['favorite.changed'], async (event, tx) => {
      if (!deliveries.has(tx)) deliveries.set(tx, Date.now());
      seen.push(Number((event.data as { videoId: string }).videoId.slice(1)));
    });
    await bus.start();
    const publish = (n: number) => database.transaction((tx) => appendEvent(tx, systemContext(), 'favorite.changed', { videoId: `v${n}`, favorite: true }, 'u1'));
    try {
      for (let n = 0; n < 40; n++) {
        await publish(n);
        bus.nudge();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await eventually(() => seen.length === 40, 40_000, 'every event');
      expect(seen).toEqual(Array.from({ length: 40 }, (_, n) => n));
      // Deliveries start 200 ms apart at least: over the span between the first and the last, no more
      // than one per 200 ms (and one more for the ends, whose handler ran a query's time after its start).
      const starts = [...deliveries.values()];
      const span = Math.max(...starts) - Math.min(...starts);
      expect(starts.length).toBeLessThanOrEqual(2 + Math.floor(span / 200));
    } finally {
      await bus.stop();
      await database.close();
    }
  });
});

describe('a batch handler on the Postgres bus', () => {
  it('is handed the events of one delivery together, in order', async () => {
    const database = await openMigratedDatabase();
    const bus = createPostgresBus(database, silentLogger, { pollMs: 20, delivery: fastDelivery });
    const batches: number[][] = [];
    bus.subscribeBatch('together', ['favorite.changed'], async (events) => void batches.push(events.map((event) => Number((event.data as { videoId: string }).videoId))));
    for (let n = 1; n <= 5; n++) await database.transaction((tx) => appendEvent(tx, systemContext(), 'favorite.changed', { videoId: String(n), favorite: true }, 'u1'));
    await bus.start();
    try {
      await eventually(() => batches.length > 0, 20_000, 'the delivery');
      expect(batches).toEqual([[1, 2, 3, 4, 5]]);
    } finally {
      await bus.stop();
      await database.close();
    }
  });
});

describe('tail-events on the Postgres bus', () => {
  it('prints the events the relay numbered, in its order, from the beginning or from now', async () => {
    const database = await openMigratedDatabase();
    const bus = createPostgresBus(database, silentLogger, { pollMs: 20 });
    await bus.start();
    const publish = (n: number) =>
      database.transaction((tx) => appendEvent(tx, systemContext(), 'favorite.changed', { videoId: `v${n}`, favorite: n % 2 === 0 }, 'u1'));
    try {
      const first = await publish(1);
      await eventually(async () => (await queryRows(database.db, sql`select 1 from platform.outbox where seq is null`)).length === 0, 10_000, 'numbering');
      const stop = new AbortController();
      const fromBeginning: unknown[] = [];
      await tailOutboxEvents(database, { fromBeginning: true, limit: 1, signal: stop.signal, print: (line) => void fromBeginning.push(line) });
      expect(fromBeginning).toEqual([{ seq: 1, ...first }]);

      const fromNow: unknown[] = [];
      const tail = tailOutboxEvents(database, { pollMs: 20, signal: stop.signal, print: (line) => void fromNow.push(line) });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const later = [await publish(2), await publish(3)];
      // A batch row (the pixel's) prints an event a line, at its row's position.
      const hits = [4, 5].map((n) => ({ data: { videoId: `v${n}`, favorite: true }, userId: `u${n}`, attribution: systemContext().attribution, time: new Date().toISOString() }));
      await database.transaction((tx) => appendEventBatch(tx, 'favorite.changed', hits));
      await eventually(() => fromNow.length === 4, 10_000, 'the later events');
      stop.abort();
      expect(await tail).toBe(4);
      expect(fromNow.slice(0, 2)).toEqual([
        { seq: 2, ...later[0] },
        { seq: 3, ...later[1] },
      ]);
      expect(fromNow.slice(2)).toMatchObject([
        { seq: 4, type: 'favorite.changed', userId: 'u4', data: { videoId: 'v4' } },
        { seq: 4, type: 'favorite.changed', userId: 'u5', data: { videoId: 'v5' } },
      ]);
    } finally {
      await bus.stop();
      await database.close();
    }
  });
});

describe.skipIf(!realDatabaseUrl)('the Postgres bus when the database restarts', () => {
  it('loses nothing and crashes nothing when every connection is killed', async () => {
    const scratch = await createScratchDatabase();
    const database = await openPostgres(scratch.url, 4);
    await migrate(database, 'platform', platformMigrations);
    const seen = new Set<string>();
    const bus = createPostgresBus(database, silentLogger, { pollMs: 5_000, delivery: fastDelivery });
    bus.subscribe('survivor', ['favorite.changed'], async (event) => {
      seen.add(event.id);
    });
    await bus.start();
    const publish = async (n: number) =>
      (await database.transaction((tx) => appendEvent(tx, systemContext(), 'favorite.changed', { videoId: `v${n}`, favorite: true }, 'u1'))).id;
    const ids = [await publish(1)];
    await eventually(() => seen.size === 1, 15_000, 'the first event');
    // What a server restart does to every connection, the LISTEN one among them.
    const admin = new pg.Client({ connectionString: realDatabaseUrl });
    await admin.connect();
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [new URL(scratch.url).pathname.slice(1)]);
    await admin.end();
    // Generous waits: under a loaded test run, new connections and the LISTEN reconnect take a while.
    for (let n = 2; n <= 5; n++) ids.push(await eventually(() => publish(n).catch(() => null), 40_000, `publishing event ${n}`));
    // A long poll: the events arrive through the LISTEN connection, re-established after the kill.
    await eventually(() => ids.every((id) => seen.has(id)), 60_000, 'every event after the restart');
    expect(seen.size).toBe(5);
    await bus.stop();
    await database.close();
    await scratch.drop();
  }, 180_000);
});
