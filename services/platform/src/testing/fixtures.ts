import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig, type Config } from '../config.ts';
import { migrate, openPglite, openPostgres, type Database } from '../db/index.ts';
import { queryRows, type Executor } from '../db/database.ts';
import { createPostgresBus, eventsFromRow, outboxColumns, type BusEvent, type EventType, type OutboxRow } from '../bus/index.ts';
import { createBullmqQueue, createDatabaseQueue } from '../queue/index.ts';
import { createPlatform, platformMigrations, stopPlatform, type Platform, type PlatformOverrides } from '../platform.ts';

/**
 * Test fixtures on real parts. Under `npm test` the suites run twice: embedded (PGlite, the
 * database queue) and against real servers (TEST_DATABASE_URL, TEST_REDIS_URL set by scripts/test.sh).
 */
export const realDatabaseUrl = process.env.TEST_DATABASE_URL;
export const realRedisUrl = process.env.TEST_REDIS_URL;

export const silentLogger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A new, empty database on the real server, and how to drop it. */
export async function createScratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: realDatabaseUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(realDatabaseUrl!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** A fresh, empty database: a new database on the real server, or an in-memory PGlite. */
export async function openTestDatabase(): Promise<Database> {
  if (!realDatabaseUrl) return openPglite(null);
  const scratch = await createScratchDatabase();
  const database = await openPostgres(scratch.url, 5);
  const closePool = database.close;
  return Object.assign(database, {
    async close() {
      await closePool();
      await scratch.drop();
    },
  });
}

/** A schema's versioned SQL and the owner it is applied as: a ServiceModule is one. */
export interface MigrationSet {
  name: string;
  migrations?: string;
}

/**
 * A fresh database (`openTestDatabase`) with the platform's schema and then each set's, in order, as
 * a process migrates at start: `openMigratedDatabase(catalogModule)`.
 */
export async function openMigratedDatabase(...sets: MigrationSet[]): Promise<Database> {
  const database = await openTestDatabase();
  try {
    await migrate(database, 'platform', platformMigrations);
    for (const set of sets) if (set.migrations) await migrate(database, set.name, set.migrations);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** The events of `type` in the outbox, as the buses hand them on (a batch row's one by one), in the order written. */
export async function outboxEvents(db: Executor, type: EventType): Promise<BusEvent[]> {
  const rows = await queryRows<OutboxRow>(db, sql`select ${outboxColumns} from platform.outbox where type = ${type} order by id`);
  return rows.flatMap(eventsFromRow);
}

export function tempDir(prefix = 'cliffhanger-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', DATA_DIR: tempDir(), LOG_LEVEL: 'silent', DEMO: '0', ...overrides });
}

/** A whole platform on a fresh database, with the queue of the current run and fast polling. */
export async function openTestPlatform(overrides: Record<string, string> = {}, adapters: Pick<PlatformOverrides, 'mailer'> = {}): Promise<Platform> {
  const config = testConfig(overrides);
  const database = await openTestDatabase();
  const queue = realRedisUrl
    ? createBullmqQueue(silentLogger, { redisUrl: realRedisUrl, prefix: `test-${randomBytes(4).toString('hex')}` })
    : createDatabaseQueue(database, silentLogger, { pollMs: 50 });
  return createPlatform(config, {
    database,
    logger: silentLogger,
    bus: createPostgresBus(database, silentLogger, { pollMs: 50 }),
    queue,
    ...adapters,
  });
}

export { stopPlatform };

export interface EventuallyOptions {
  /** How long to wait in all (default 10 s). */
  timeoutMs?: number;
  /** What is awaited, for the timeout's message. */
  what?: string;
  /** The pause between two probes (default 25 ms). */
  intervalMs?: number;
  /** Errors the probe throws are retried until the deadline, the last one told in the timeout's message (without it one ends the wait). */
  retryErrors?: boolean;
  /** Retries errors but those of this class, which end the wait at once (a process that exited: waiting longer cannot help). */
  stopOn?: abstract new (...args: never[]) => Error;
}

/**
 * Polls `probe` until it answers a truthy value, or fails after the timeout with what it waited for
 * (and the probe's last error, when errors are retried). The one poller of the test suites, e2e and
 * benchmarks included: `eventually(probe, timeoutMs, what)` or `eventually(probe, { ... })`.
 */
export async function eventually<T>(probe: () => Promise<T> | T, timeoutMs?: number, what?: string): Promise<NonNullable<T>>;
export async function eventually<T>(probe: () => Promise<T> | T, options: EventuallyOptions): Promise<NonNullable<T>>;
export async function eventually<T>(probe: () => Promise<T> | T, timeoutOrOptions: number | EventuallyOptions = {}, whatArgument?: string): Promise<NonNullable<T>> {
  const options = typeof timeoutOrOptions === 'number' ? { timeoutMs: timeoutOrOptions, what: whatArgument } : timeoutOrOptions;
  const { timeoutMs = 10_000, what = 'condition', intervalMs = 25, stopOn } = options;
  const retryErrors = options.retryErrors ?? Boolean(stopOn);
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      if (!retryErrors || (stopOn && error instanceof stopOn)) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A loopback port nobody listens on now, for a process a test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A clock a test moves by hand, for the services' `now` option: `now()` reads it, `advance` moves it on. */
export interface TestClock {
  time: Date;
  now: () => Date;
  advance: (ms: number) => void;
}

export function testClock(start = '2025-03-01T12:00:00Z'): TestClock {
  const clock: TestClock = {
    time: new Date(start),
    now: () => clock.time,
    advance(ms) {
      clock.time = new Date(clock.time.getTime() + ms);
    },
  };
  return clock;
}
