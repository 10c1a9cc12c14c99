import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import { queryRows, type Database } from '../db/database.ts';
import { describe } from '../bus/delivery.ts';
import {
  PermanentJobError,
  retryDelayMs,
  WORKER_LOST,
  type DeadJobHook,
  type EnqueueOptions,
  type JobDefinition,
  type JobHandler,
  type JobQueue,
  type JobState,
  type ListedJob,
  type QueueDepth,
} from './queue.ts';

export interface DatabaseQueueOptions {
  pollMs?: number;
  /** How long a claimed job stays a worker's without a heartbeat before it is lost to another claim. */
  leaseMs?: number;
}

interface JobRow {
  id: string;
  data: unknown;
  attempts: number;
  max_attempts: number;
  backoff_ms: number;
  last_error: string | null;
}

/** One claim of a job: the row as claimed and the token that proves this worker still holds it. */
interface Claim {
  row: JobRow;
  token: string;
}

/**
 * Jobs in platform.jobs. A worker claims one with SKIP LOCKED under a fresh token and holds a lease
 * it renews while running. Every claim counts as an attempt: a job whose lease ran out is claimed
 * again while it has attempts left, and buried (dead, dead-job hooks run) once it has none.
 */
export function createDatabaseQueue(database: Database, logger: Logger, options: DatabaseQueueOptions = {}): JobQueue {
  const pollMs = options.pollMs ?? 500;
  const leaseMs = options.leaseMs ?? 60_000;
  const lease = `${leaseMs} milliseconds`;
  const workers: { definition: JobDefinition<unknown>; handler: JobHandler<unknown> }[] = [];
  const deadHooks = new Map<string, DeadJobHook<unknown>[]>();
  const loops: Promise<void>[] = [];
  const wakers = new Set<() => void>();
  let running = false;

  const parse = (data: unknown) => (typeof data === 'string' ? JSON.parse(data) : data);

  // The lease is renewed, and the job finished, only by the claim that holds it, and only while the
  // lease runs: once it has run out the job may be someone else's, whether or not they took it yet.
  async function whileHeld(claim: Claim, change: SQL): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(database.db, sql`
      update platform.jobs set ${change}
       where id = ${claim.row.id} and lock_token = ${claim.token} and status = 'active' and locked_until >= now()
      returning id`);
    return rows.length > 0;
  }

  /**
   * Claims a job under a fresh token: `to-run` a waiting one, or one whose worker went silent and
   * that has attempts left (this claim counts as one); `to-bury` one whose worker went silent on
   * its last attempt, to end it dead.
   */
  async function claim(queue: string, purpose: 'to-run' | 'to-bury'): Promise<Claim | null> {
    const token = randomUUID();
    const which =
      purpose === 'to-run'
        ? sql`(status = 'waiting' or (status = 'active' and locked_until < now() and attempts < max_attempts))`
        : sql`status = 'active' and locked_until < now() and attempts >= max_attempts`;
    const [row] = await queryRows<JobRow>(database.db, sql`
      update platform.jobs
         set status = 'active', lock_token = ${token}, locked_until = now() + ${lease}::interval,
             last_error = case when status = 'active' and finished_at is null then ${WORKER_LOST} else last_error end,
             attempts = attempts + ${purpose === 'to-run' ? 1 : 0}
       where id = (select id from platform.jobs where queue = ${queue} and run_at <= now() and ${which}
                    order by priority, run_at, created_at limit 1 for update skip locked)
      returning id, data, attempts, max_attempts, backoff_ms, last_error`);
    return row ? { row, token } : null;
  }

  /**
   * Ends a job dead: its failure is recorded first (its attempts closed and finished_at set, so a
   * crash from here on buries it with this error rather than running it again), then the hooks run,
   * then it is marked dead. A hook that throws leaves the job to lapse and be buried again: hooks
   * run at least once.
   */
  async function bury(definition: JobDefinition<unknown>, claim: Claim, error: string, permanent: boolean): Promise<void> {
    const { row } = claim;
    const closed = sql`last_error = ${error}, max_attempts = least(max_attempts, attempts), finished_at = coalesce(finished_at, now())`;
    if (!(await whileHeld(claim, closed))) return;
    try {
      for (const hook of deadHooks.get(definition.queue) ?? [])
        await hook({ id: row.id, data: parse(row.data), attempts: row.attempts, error, permanent });
    } catch (hookError) {
      logger.error({ queue: definition.queue, jobId: row.id, err: hookError }, 'dead-job hook failed; the job is buried again once its lease runs out');
      return;
    }
    await whileHeld(claim, sql`status = 'dead', locked_until = null, lock_token = null`);
  }

  async function run(definition: JobDefinition<unknown>, handler: JobHandler<unknown>, claim: Claim): Promise<void> {
    const { row } = claim;
    const lost = new AbortController();
    const heartbeat = setInterval(() => {
      void whileHeld(claim, sql`locked_until = now() + ${lease}::interval`).then(
        (held) => {
          if (held || lost.signal.aborted) return;
          clearInterval(heartbeat);
          logger.warn({ queue: definition.queue, jobId: row.id, attempt: row.attempts }, 'job lost: its lease ran out');
          lost.abort(new Error(WORKER_LOST));
        },
        () => {},
      );
    }, leaseMs / 3);
    try {
      let failure: { error: unknown } | null = null;
      try {
        await handler({
          id: row.id,
          data: parse(row.data),
          attempt: row.attempts,
          signal: lost.signal,
          reportProgress: async (percent) => void (await whileHeld(claim, sql`progress = ${Math.round(percent)}`)),
        });
      } catch (error) {
        failure = { error };
      }
      if (!failure) {
        const completed = await whileHeld(claim, sql`status = 'completed', progress = 100, locked_until = null, lock_token = null, finished_at = now(), last_error = null`);
        if (!completed) logger.warn({ queue: definition.queue, jobId: row.id }, 'completion refused: the job was lost when its lease ran out');
        return;
      }
      const { error } = failure;
      const permanent = error instanceof PermanentJobError;
      const dead = permanent || row.attempts >= row.max_attempts;
      logger.warn({ queue: definition.queue, jobId: row.id, attempt: row.attempts, dead, err: error }, 'job failed');
      // A permanent error's message says it all; others keep their type (FfmpegError, ...).
      const message = permanent ? error.message : describe(error);
      if (dead) await bury(definition, claim, message, permanent);
      else
        await whileHeld(claim, sql`status = 'waiting', locked_until = null, lock_token = null, last_error = ${message},
                                   run_at = now() + ${`${retryDelayMs(row.backoff_ms, row.attempts)} milliseconds`}::interval`);
    } finally {
      clearInterval(heartbeat);
    }
  }

  function workerLoop(definition: JobDefinition<unknown>, handler: JobHandler<unknown>): Promise<void> {
    return (async () => {
      while (running) {
        let found = false;
        try {
          const doomed = await claim(definition.queue, 'to-bury');
          if (doomed) await bury(definition, doomed, doomed.row.last_error ?? WORKER_LOST, false);
          const next = doomed ? null : await claim(definition.queue, 'to-run');
          if (next) await run(definition, handler, next);
          found = Boolean(doomed ?? next);
        } catch (error) {
          if (running) logger.error({ err: error, queue: definition.queue }, 'job runner failed; retrying');
        }
        if (!found && running) {
          await new Promise<void>((resolve) => {
            const wake = () => {
              clearTimeout(timer);
              wakers.delete(wake);
              resolve();
            };
            const timer = setTimeout(wake, pollMs);
            wakers.add(wake);
          });
        }
      }
    })();
  }

  return {
    kind: 'database',
    async enqueue(definition, data, enqueueOptions: EnqueueOptions = {}) {
      const id = enqueueOptions.jobId ?? randomUUID();
      await database.db.execute(sql`
        insert into platform.jobs (id, queue, data, priority, max_attempts, backoff_ms, run_at)
        values (${id}, ${definition.queue}, ${JSON.stringify(data)}::jsonb, ${enqueueOptions.priority ?? 0},
                ${definition.attempts}, ${definition.backoffMs}, now() + ${`${enqueueOptions.delayMs ?? 0} milliseconds`}::interval)
        on conflict (id) do nothing`);
      for (const wake of wakers) wake();
      return id;
    },
    work(definition, handler) {
      workers.push({ definition, handler: handler as JobHandler<unknown> });
      if (running) for (let i = 0; i < definition.concurrency; i++) loops.push(workerLoop(definition, handler as JobHandler<unknown>));
    },
    onDead(definition, hook) {
      deadHooks.set(definition.queue, [...(deadHooks.get(definition.queue) ?? []), hook as DeadJobHook<unknown>]);
    },
    async getJob(definition, id): Promise<JobState | null> {
      const [row] = await queryRows<{ id: string; status: JobState['status']; attempts: number; progress: number; last_error: string | null }>(
        database.db,
        sql`select id, status, attempts, progress, last_error from platform.jobs where id = ${id} and queue = ${definition.queue}`,
      );
      return row ? { id: row.id, status: row.status, attempts: row.attempts, progress: row.progress, lastError: row.last_error } : null;
    },
    async list(queue, status, { offset = 0, limit = 50 } = {}) {
      const rows = await queryRows<{ id: string; data: unknown; attempts: number; progress: number; last_error: string | null; created_at: string | Date; finished_at: string | Date | null; total: number }>(
        database.db,
        sql`select id, data, attempts, progress, last_error, created_at, finished_at, count(*) over ()::int as total
              from platform.jobs where queue = ${queue} and status = ${status}
             order by created_at desc, id limit ${limit} offset ${offset}`,
      );
      const items = rows.map(
        (row): ListedJob => ({
          id: row.id,
          queue,
          status,
          data: parse(row.data),
          attempts: row.attempts,
          progress: row.progress,
          lastError: row.last_error,
          createdAt: new Date(row.created_at).toISOString(),
          finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
        }),
      );
      // A page past the end has no row to carry the count: count apart only then.
      if (rows.length > 0 || offset === 0) return { items, total: Number(rows[0]?.total ?? 0) };
      const [counted] = await queryRows<{ total: number }>(database.db, sql`select count(*)::int as total from platform.jobs where queue = ${queue} and status = ${status}`);
      return { items, total: Number(counted?.total ?? 0) };
    },
    async depth() {
      const rows = await queryRows<{ queue: string; status: QueueDepth['status']; jobs: number }>(
        database.db,
        sql`select queue, status, count(*)::int as jobs from platform.jobs where status <> 'completed' group by queue, status`,
      );
      return rows.map((row) => ({ queue: row.queue, status: row.status, jobs: Number(row.jobs) }));
    },
    async start() {
      running = true;
      for (const { definition, handler } of workers)
        for (let i = 0; i < definition.concurrency; i++) loops.push(workerLoop(definition, handler));
    },
    async stop() {
      running = false;
      for (const wake of wakers) wake();
      await Promise.all(loops.splice(0));
    },
  };
}
