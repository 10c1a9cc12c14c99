import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineJob, migrate, PermanentJobError, platformMigrations, type Database, type JobQueue } from '../src/index.ts';
import { eventually, openTestDatabase } from '../src/testing.ts';

/** The job queue contract: every JobQueue adapter passes these. */
export function queueContract(adapter: string, makeQueue: (database: Database) => JobQueue, skip?: string) {
  describe.skipIf(Boolean(skip))(`job queue contract: ${adapter}`, () => {
    let database: Database;
    const queues: JobQueue[] = [];
    const queue = () => {
      const created = makeQueue(database);
      queues.push(created);
      return created;
    };
    const definition = (name: string, attempts = 3) => defineJob<{ n: number }>(`${name}-${Math.random().toString(36).slice(2)}`, { attempts, backoffMs: 20 });

    beforeEach(async () => {
      database = await openTestDatabase();
      await migrate(database, 'platform', platformMigrations);
    });
    afterEach(async () => {
      await Promise.all(queues.splice(0).map((q) => q.stop()));
      await database.close();
    });

    it('runs an enqueued job with its data and marks it completed', async () => {
      const job = definition('plain');
      const q = queue();
      const seen: number[] = [];
      q.work(job, async ({ data, reportProgress }) => {
        await reportProgress(50);
        seen.push(data.n);
      });
      await q.start();
      const id = await q.enqueue(job, { n: 7 });
      await eventually(async () => (await q.getJob(job, id))?.status === 'completed', 10_000, 'completion');
      expect(seen).toEqual([7]);
      expect(await q.getJob(job, id)).toMatchObject({ status: 'completed', attempts: 1 });
    });

    it('retries a failing job with backoff until it succeeds', async () => {
      const job = definition('flaky', 4);
      const q = queue();
      const attempts: number[] = [];
      q.work(job, async ({ attempt }) => {
        attempts.push(attempt);
        if (attempt < 3) throw new Error('temporary');
      });
      await q.start();
      const id = await q.enqueue(job, { n: 1 });
      await eventually(async () => (await q.getJob(job, id))?.status === 'completed', 15_000, 'completion');
      expect(attempts).toEqual([1, 2, 3]);
    });

    it('moves a job that keeps failing to the dead letters after its attempts', async () => {
      const job = definition('doomed', 2);
      const q = queue();
      let calls = 0;
      q.work(job, async () => {
        calls += 1;
        throw new Error('always broken');
      });
      await q.start();
      const id = await q.enqueue(job, { n: 1 });
      const state = await eventually(async () => {
        const found = await q.getJob(job, id);
        return found?.status === 'dead' ? found : null;
      }, 15_000, 'dead letter');
      expect(calls).toBe(2);
      expect(state.lastError).toContain('always broken');
    });

    it('does not retry a job that failed permanently', async () => {
      const job = definition('corrupt', 5);
      const q = queue();
      let calls = 0;
      q.work(job, async () => {
        calls += 1;
        throw new PermanentJobError('not a video file');
      });
      await q.start();
      const id = await q.enqueue(job, { n: 1 });
      await eventually(async () => (await q.getJob(job, id))?.status === 'dead', 10_000, 'dead letter');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(calls).toBe(1);
    });

    it('enqueues a job id once, however often it is asked', async () => {
      const job = definition('idempotent');
      const q = queue();
      let calls = 0;
      q.work(job, async () => {
        calls += 1;
      });
      await Promise.all([1, 2, 3].map(() => q.enqueue(job, { n: 1 }, { jobId: 'same-job' })));
      await q.start();
      await eventually(async () => (await q.getJob(job, 'same-job'))?.status === 'completed', 10_000, 'completion');
      await q.enqueue(job, { n: 1 }, { jobId: 'same-job' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(calls).toBe(1);
    });

    it('keeps a job enqueued before a restart and runs it after', async () => {
      const job = definition('durable');
      const before = queue();
      const id = await before.enqueue(job, { n: 42 });
      await before.stop();
      const after = queue();
      const seen: number[] = [];
      after.work(job, async ({ data }) => void seen.push(data.n));
      await after.start();
      await eventually(async () => (await after.getJob(job, id))?.status === 'completed', 10_000, 'completion');
      expect(seen).toEqual([42]);
    });
  });
}
