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
  type BusEvent,
  type Database,
} from '../src/index.ts';
import { createScratchDatabase, eventually, realDatabaseUrl, silentLogger, tempDir } from '../src/testing.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs the crash fixture to its death and answers the database it wrote, reopened. */
async function crashThenReopen(mode: 'event' | 'job'): Promise<{ database: Database; release: () => Promise<void> }> {
  const scratch = realDatabaseUrl ? await createScratchDatabase() : null;
  const target = scratch?.url ?? tempDir();
  const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures/crash.ts'), mode, target], { encoding: 'utf8', timeout: 60_000 });
  expect(child.signal, child.stderr).toBe('SIGKILL');
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
});
