import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  createDatabaseQueue,
  createPostgresBus,
  defineJob,
  openPglite,
  openPostgres,
  queryRows,
  WORKER_LOST,
  type BusEvent,
  type Database,
  type DeadJob,
} from '../src/index.ts';
import { createScratchDatabase, eventually, realDatabaseUrl, silentLogger, tempDir } from '../src/testing/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs the crash fixture to its death (`times` processes one after another) and answers the database it wrote, reopened. */
async function crashThenReopen(mode: 'event' | 'job', times = 1): Promise<{ database: Database; release: () => Promise<void> }> {
  const scratch = realDatabaseUrl ? await createScratchDatabase() : null;
  const target = scratch?.url ?? tempDir();
  for (let i = 0; i < times; i++) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures/crash.ts'), mode, target], { encoding: 'utf8', timeout: 60_000 });
    expect(child.signal, child.stderr).toBe('SIGKILL');
  }
  const database = target.startsWith('postgres') ? await openPostgres(target) : await openPglite(target);
  return {
    database,
    release: async () => {
      await database.close();
      await scratch?.drop();
    },
  };
}

describe('crash safety', () => {
  it('an event committed with its change is delivered after the process dies before publishing', async () => {
    const { database, release } = await crashThenReopen('event');
    try {
      expect(await queryRows(database.db, sql`select id from orders`)).toEqual([{ id: 'order-1' }]);
      const bus = createPostgresBus(database, silentLogger, { pollMs: 20 });
      const seen: BusEvent[] = [];
      bus.subscribe('after-crash', ['order.created'], async (event) => void seen.push(event));
      await bus.start();
      await eventually(() => seen.length === 1, 10_000, 'the event');
      await bus.stop();
      expect(seen[0]).toMatchObject({ type: 'order.created', data: { orderId: 'order-1' } });
    } finally {
      await release();
    }
  }, 90_000);

  it('a job whose worker died is taken again when its lease runs out', async () => {
    const { database, release } = await crashThenReopen('job');
    try {
      const queue = createDatabaseQueue(database, silentLogger, { pollMs: 20, leaseMs: 500 });
      const job = defineJob<{ n: number }>('crashy', { attempts: 3, backoffMs: 10 });
      const attempts: number[] = [];
      queue.work(job, async ({ attempt }) => void attempts.push(attempt));
      await queue.start();
      await eventually(async () => (await queue.getJob(job, 'job-1'))?.status === 'completed', 15_000, 'completion');
      await queue.stop();
      expect(attempts).toEqual([2]);
    } finally {
      await release();
    }
  }, 90_000);

  it('a job that killed its worker on every attempt is buried, its dead-job hook told, and never run again', async () => {
    const { database, release } = await crashThenReopen('job', 3);
    try {
      const queue = createDatabaseQueue(database, silentLogger, { pollMs: 20, leaseMs: 500 });
      const job = defineJob<{ n: number }>('crashy', { attempts: 3, backoffMs: 10 });
      const attempts: number[] = [];
      const buried: DeadJob<{ n: number }>[] = [];
      queue.work(job, async ({ attempt }) => void attempts.push(attempt));
      queue.onDead(job, async (dead) => void buried.push(dead));
      await queue.start();
      await eventually(async () => (await queue.getJob(job, 'job-1'))?.status === 'dead', 15_000, 'the dead letter');
      await queue.stop();
      expect(attempts).toEqual([]);
      expect(buried).toEqual([{ id: 'job-1', data: { n: 1 }, attempts: 3, error: WORKER_LOST, permanent: false }]);
    } finally {
      await release();
    }
  }, 120_000);
});
