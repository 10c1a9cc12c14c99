import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { queryRows, type Database } from '../db/database.ts';
import { describe } from '../bus/delivery.ts';
import {
  PermanentJobError,
  retryDelayMs,
  type EnqueueOptions,
  type JobDefinition,
  type JobHandler,
  type JobQueue,
  type JobState,
} from './queue.ts';

export interface DatabaseQueueOptions {
  pollMs?: number;
  /** How long a claimed job stays a worker's without a heartbeat before another may take it. */
  leaseMs?: number;
}

interface JobRow {
  id: string;
  data: unknown;
  attempts: number;
  max_attempts: number;
  backoff_ms: number;
}

/**
 * Jobs in platform.jobs. A worker claims one with SKIP LOCKED and holds a lease it renews while
 * running; a crashed worker's job is claimed again when the lease runs out.
 */
export function createDatabaseQueue(database: Database, logger: Logger, options: DatabaseQueueOptions = {}): JobQueue {
  const pollMs = options.pollMs ?? 500;
  const leaseMs = options.leaseMs ?? 60_000;
  const workers: { definition: JobDefinition<unknown>; handler: JobHandler<unknown> }[] = [];
  const loops: Promise<void>[] = [];
  const wakers = new Set<() => void>();
  let running = false;

  async function claim(queue: string): Promise<JobRow | null> {
    const [claimed] = await queryRows<JobRow>(database.db, sql`
      update platform.jobs set status = 'active', attempts = attempts + 1,
             locked_until = now() + ${`${leaseMs} milliseconds`}::interval
       where id = (select id from platform.jobs
                    where queue = ${queue} and run_at <= now()
                      and (status = 'waiting' or (status = 'active' and locked_until < now()))
                    order by priority, run_at, created_at limit 1 for update skip locked)
      returning id, data, attempts, max_attempts, backoff_ms`);
    return claimed ?? null;
  }

  async function run(definition: JobDefinition<unknown>, handler: JobHandler<unknown>, row: JobRow): Promise<void> {
    const heartbeat = setInterval(() => {
      void database.db
        .execute(sql`update platform.jobs set locked_until = now() + ${`${leaseMs} milliseconds`}::interval where id = ${row.id}`)
        .catch(() => {});
    }, leaseMs / 3);
    try {
      await handler({
        id: row.id,
        data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
        attempt: row.attempts,
        reportProgress: async (percent) => {
          await database.db.execute(sql`update platform.jobs set progress = ${Math.round(percent)} where id = ${row.id}`);
        },
      });
      await database.db.execute(sql`
        update platform.jobs set status = 'completed', progress = 100, locked_until = null, finished_at = now(), last_error = null
        where id = ${row.id}`);
    } catch (error) {
      const dead = error instanceof PermanentJobError || row.attempts >= row.max_attempts;
      logger.warn({ queue: definition.queue, jobId: row.id, attempt: row.attempts, dead, err: error }, 'job failed');
      await database.db.execute(
        dead
          ? sql`update platform.jobs set status = 'dead', locked_until = null, finished_at = now(), last_error = ${describe(error)}
                where id = ${row.id}`
          : sql`update platform.jobs set status = 'waiting', locked_until = null, last_error = ${describe(error)},
                run_at = now() + ${`${retryDelayMs(row.backoff_ms, row.attempts)} milliseconds`}::interval
                where id = ${row.id}`,
      );
    } finally {
      clearInterval(heartbeat);
    }
  }

  function workerLoop(definition: JobDefinition<unknown>, handler: JobHandler<unknown>): Promise<void> {
    return (async () => {
      while (running) {
        let row: JobRow | null = null;
        try {
          row = await claim(definition.queue);
          if (row) await run(definition, handler, row);
        } catch (error) {
          if (running) logger.error({ err: error, queue: definition.queue }, 'job runner failed; retrying');
        }
        if (!row && running) {
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
    async getJob(definition, id): Promise<JobState | null> {
      const [row] = await queryRows<{ id: string; status: JobState['status']; attempts: number; progress: number; last_error: string | null }>(
        database.db,
        sql`select id, status, attempts, progress, last_error from platform.jobs where id = ${id} and queue = ${definition.queue}`,
      );
      return row ? { id: row.id, status: row.status, attempts: row.attempts, progress: row.progress, lastError: row.last_error } : null;
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
