import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineJob, PermanentJobError, WORKER_LOST, type Database, type DeadJob, type JobQueue } from '../src/index.ts';
import { eventually, openMigratedDatabase } from '../src/testing/index.ts';

export interface ContractQueueOptions {
  /** How long a claim holds without a heartbeat: short where a test makes workers stall. */
  leaseMs?: number;
}

/**
 * Holds the event loop, as a frozen worker process (or a handler hogging the CPU) would: no
 * heartbeat or lock renewal goes out, so the job's lease runs out while its handler still runs.
 */
function freeze(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The job queue contract: every JobQueue adapter passes these. */
export function queueContract(adapter: string, makeQueue: (database: Database, options?: ContractQueueOptions) => JobQueue, skip?: string) {
  describe.skipIf(Boolean(skip))(`job queue contract: ${adapter}`, () => {
    let database: Database;
    const queues: JobQueue[] = [];
    // Handlers of workers that "died" stay pending until the test ends, as a killed process's would forever.
    const hung: (() => void)[] = [];
    const queue = (options?: ContractQueueOptions) => {
      const created = makeQueue(database, options);
      queues.push(created);
      return created;
    };
    const definition = (name: string, attempts = 3) => defineJob<{ n: number }>(`${name}-${Math.random().toString(36).slice(2)}`, { attempts, backoffMs: 20 });

    beforeEach(async () => {
      database = await openMigratedDatabase();
    });
    afterEach(async () => {
      for (const release of hung.splice(0)) release();
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

    it('moves a job that keeps failing to the dead letters after its attempts, and tells its dead-job hook', async () => {
      const job = definition('doomed', 2);
      const q = queue();
      let calls = 0;
      const buried: DeadJob<{ n: number }>[] = [];
      q.work(job, async () => {
        calls += 1;
        throw new Error('always broken');
      });
      q.onDead(job, async (dead) => void buried.push(dead));
      await q.start();
      const id = await q.enqueue(job, { n: 1 });
      const state = await eventually(async () => {
        const found = await q.getJob(job, id);
        return found?.status === 'dead' ? found : null;
      }, 15_000, 'dead letter');
      expect(calls).toBe(2);
      expect(state).toMatchObject({ attempts: 2, lastError: expect.stringContaining('always broken') });
      await eventually(() => buried.length === 1, 5_000, 'the dead-job hook');
      expect(buried[0]).toMatchObject({ id, data: { n: 1 }, attempts: 2, error: expect.stringContaining('always broken'), permanent: false });
    });

    it('does not retry a job that failed permanently, and tells its dead-job hook why', async () => {
      const job = definition('corrupt', 5);
      const q = queue();
      let calls = 0;
      const buried: DeadJob<{ n: number }>[] = [];
      q.work(job, async () => {
        calls += 1;
        throw new PermanentJobError('not a video file');
      });
      q.onDead(job, async (dead) => void buried.push(dead));
      await q.start();
      const id = await q.enqueue(job, { n: 1 });
      await eventually(async () => (await q.getJob(job, id))?.status === 'dead', 10_000, 'dead letter');
      await eventually(() => buried.length === 1, 5_000, 'the dead-job hook');
      await sleep(200);
      expect(calls).toBe(1);
      expect(buried).toEqual([{ id, data: { n: 1 }, attempts: 1, error: 'not a video file', permanent: true }]);
    });

    it('tries a job whose workers keep dying on it up to its attempts, then buries it once and never hands it out again', async () => {
      const leaseMs = 400;
      const job = definition('crashing', 3);
      // Four worker processes; each that takes the job freezes past its lease and never comes back.
      const workers = [1, 2, 3, 4].map(() => queue({ leaseMs }));
      const attempts: number[] = [];
      const buried: DeadJob<{ n: number }>[] = [];
      for (const worker of workers) {
        worker.work(job, async ({ attempt }) => {
          attempts.push(attempt);
          freeze(leaseMs * 2);
          await new Promise<void>((resolve) => hung.push(resolve));
        });
        worker.onDead(job, async (dead) => void buried.push(dead));
      }
      await Promise.all(workers.map((worker) => worker.start()));
      const id = await workers[0]!.enqueue(job, { n: 5 });
      const state = await eventually(async () => {
        const found = await workers[0]!.getJob(job, id);
        return found?.status === 'dead' ? found : null;
      }, 30_000, 'the dead letter');
      await eventually(() => buried.length > 0, 5_000, 'the dead-job hook');
      expect(attempts).toEqual([1, 2, 3]);
      expect(state).toMatchObject({ attempts: 3, lastError: WORKER_LOST });
      expect(buried).toEqual([{ id, data: { n: 5 }, attempts: 3, error: WORKER_LOST, permanent: false }]);

      // The frozen workers wake up and finish: too late, the job stays dead and is not run again.
      for (const release of hung.splice(0)) release();
      await sleep(leaseMs * 3);
      expect(attempts).toHaveLength(3);
      expect(buried).toHaveLength(1);
      expect(await workers[0]!.getJob(job, id)).toMatchObject({ status: 'dead', attempts: 3 });
    }, 60_000);

    it.each(['complete', 'fail'] as const)('a worker whose lease ran out cannot %s the job another worker claimed', async (outcome) => {
      const leaseMs = 400;
      const job = definition('stalled', 3);
      const tries: { attempt: number; signal: AbortSignal; finish: () => void }[] = [];
      const handler = async ({ attempt, signal }: { attempt: number; signal: AbortSignal }) => {
        const finished = new Promise<void>((resolve) => tries.push({ attempt, signal, finish: resolve }));
        if (attempt === 1) freeze(leaseMs * 2);
        await finished;
        if (attempt === 1 && outcome === 'fail') throw new Error('late failure');
      };
      const workers = [queue({ leaseMs }), queue({ leaseMs })];
      for (const worker of workers) worker.work(job, handler);
      await Promise.all(workers.map((worker) => worker.start()));
      const id = await workers[0]!.enqueue(job, { n: 1 });
      await eventually(() => tries.length === 2, 20_000, 'the second claim');
      const [stalled, current] = tries as [(typeof tries)[0], (typeof tries)[0]];
      expect([stalled.attempt, current.attempt]).toEqual([1, 2]);
      await eventually(() => stalled.signal.aborted, 10_000, 'the stalled worker to learn it lost the job');
      expect(current.signal.aborted).toBe(false);

      stalled.finish();
      await sleep(leaseMs * 2);
      expect(await workers[0]!.getJob(job, id)).toMatchObject({ status: 'active', attempts: 2 });
      current.finish();
      await eventually(async () => (await workers[0]!.getJob(job, id))?.status === 'completed', 10_000, 'completion by the current claim');
      expect(await workers[0]!.getJob(job, id)).toMatchObject({ attempts: 2, lastError: null });
    }, 60_000);

    it("lists a queue's waiting, running and dead jobs by page, to a process that neither enqueues nor works them", async () => {
      const job = definition('listed');
      const idle = definition('listed-idle');
      const worker = queue();
      const lister = queue();
      let release!: () => void;
      worker.work(job, async ({ data, reportProgress }) => {
        if (data.n === 0) throw new PermanentJobError('not a video file');
        await reportProgress(40);
        await new Promise<void>((resolve) => (release = resolve));
      });
      await worker.start();
      const broken = await worker.enqueue(job, { n: 0 });
      await eventually(async () => (await worker.getJob(job, broken))?.status === 'dead', 10_000, 'the dead letter');
      const running = await worker.enqueue(job, { n: 1 });
      await eventually(async () => (await lister.list(job.queue, 'active')).items[0]?.progress === 40, 10_000, 'the running job with its progress');
      const waiting = [await worker.enqueue(idle, { n: 2 }), await worker.enqueue(idle, { n: 3 }), await worker.enqueue(idle, { n: 4 })];

      expect(await lister.list(job.queue, 'active')).toEqual({
        total: 1,
        items: [expect.objectContaining({ id: running, queue: job.queue, status: 'active', data: { n: 1 }, attempts: 1, progress: 40, lastError: null, finishedAt: null })],
      });
      expect(await lister.list(job.queue, 'dead')).toEqual({
        total: 1,
        items: [expect.objectContaining({ id: broken, status: 'dead', data: { n: 0 }, attempts: 1, lastError: 'not a video file', finishedAt: expect.any(String) })],
      });
      const first = await lister.list(idle.queue, 'waiting', { limit: 2 });
      const rest = await lister.list(idle.queue, 'waiting', { offset: 2, limit: 2 });
      expect([first.total, first.items.length, rest.total, rest.items.length]).toEqual([3, 2, 3, 1]);
      expect([...first.items, ...rest.items].map((listed) => listed.id).sort()).toEqual([...waiting].sort());
      expect(first.items[0]).toMatchObject({ status: 'waiting', attempts: 0, progress: 0, lastError: null, createdAt: expect.any(String) });
      expect(await lister.list(idle.queue, 'waiting', { offset: 5 })).toEqual({ items: [], total: 3 });
      expect(await lister.list(idle.queue, 'dead')).toEqual({ items: [], total: 0 });
      release();
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
