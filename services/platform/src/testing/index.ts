import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig, type Config } from '../config.ts';
import { openPglite, openPostgres, type Database } from '../db/index.ts';
import { queryRows, type Executor } from '../db/database.ts';
import { createPostgresBus, eventsFromRow, outboxColumns, type BusEvent, type EventType, type OutboxRow } from '../bus/index.ts';
import { createBullmqQueue, createDatabaseQueue } from '../queue/index.ts';
import { createPlatform, stopPlatform, type Platform, type PlatformOverrides } from '../platform.ts';

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

/** Polls `probe` until it answers a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export * from './media.ts';
export * from './site.ts';
export * from './kafka-mock.ts';

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
