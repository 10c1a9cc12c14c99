import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import {
  PermanentJobError,
  retryDelayMs,
  type EnqueueOptions,
  type JobDefinition,
  type JobHandler,
  type JobQueue,
  type JobState,
} from './queue.ts';

export interface BullmqQueueOptions {
  redisUrl: string;
  /** Key prefix in Redis; tests give each run its own. */
  prefix?: string;
}

function connectionOf(url: string): ConnectionOptions {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.pathname.length > 1 ? { db: Number(parsed.pathname.slice(1)) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

const statusOf: Record<string, JobState['status']> = {
  waiting: 'waiting',
  'waiting-children': 'waiting',
  prioritized: 'waiting',
  delayed: 'waiting',
  active: 'active',
  completed: 'completed',
  failed: 'dead',
};

/** BullMQ on Redis: production's queue. Failed jobs stay in BullMQ's failed set, the dead letters. */
export function createBullmqQueue(logger: Logger, options: BullmqQueueOptions): JobQueue {
  const connection = connectionOf(options.redisUrl);
  const prefix = options.prefix ?? 'cliffhanger';
  const queues = new Map<string, Queue>();
  const pending: { definition: JobDefinition<unknown>; handler: JobHandler<unknown> }[] = [];
  const workers: Worker[] = [];
  let running = false;

  const queueOf = (name: string) => {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection, prefix });
      queue.on('error', (error) => logger.error({ err: error, queue: name }, 'bullmq queue error'));
      queues.set(name, queue);
    }
    return queue;
  };

  function startWorker(definition: JobDefinition<unknown>, handler: JobHandler<unknown>): void {
    const worker = new Worker(
      definition.queue,
      async (job: Job) => {
        try {
          await handler({
            id: job.id!,
            data: job.data,
            attempt: job.attemptsMade + 1,
            reportProgress: (percent) => job.updateProgress(Math.round(percent)),
          });
        } catch (error) {
          if (error instanceof PermanentJobError) throw new UnrecoverableError(error.message);
          throw error;
        }
      },
      {
        connection,
        prefix,
        concurrency: definition.concurrency,
        settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(definition.backoffMs, attemptsMade) },
      },
    );
    worker.on('error', (error) => logger.error({ err: error, queue: definition.queue }, 'bullmq worker error'));
    worker.on('failed', (job, error) =>
      logger.warn({ queue: definition.queue, jobId: job?.id, attempt: job?.attemptsMade, err: error }, 'job failed'),
    );
    workers.push(worker);
  }

  return {
    kind: 'bullmq',
    async enqueue(definition, data, enqueueOptions: EnqueueOptions = {}) {
      const job = await queueOf(definition.queue).add(definition.queue, data, {
        ...(enqueueOptions.jobId ? { jobId: enqueueOptions.jobId } : {}),
        ...(enqueueOptions.priority ? { priority: enqueueOptions.priority } : {}),
        ...(enqueueOptions.delayMs ? { delay: enqueueOptions.delayMs } : {}),
        attempts: definition.attempts,
        backoff: { type: 'custom' },
        removeOnComplete: { age: 7 * 24 * 3600 },
        removeOnFail: false,
      });
      return job.id!;
    },
    work(definition, handler) {
      if (running) startWorker(definition, handler as JobHandler<unknown>);
      else pending.push({ definition, handler: handler as JobHandler<unknown> });
    },
    async getJob(definition, id) {
      const job = await queueOf(definition.queue).getJob(id);
      if (!job) return null;
      const state = await job.getState();
      return {
        id,
        status: statusOf[state] ?? 'waiting',
        attempts: job.attemptsMade,
        progress: typeof job.progress === 'number' ? job.progress : 0,
        lastError: job.failedReason ?? null,
      };
    },
    async start() {
      running = true;
      for (const { definition, handler } of pending.splice(0)) startWorker(definition, handler);
    },
    async stop() {
      running = false;
      await Promise.all(workers.splice(0).map((worker) => worker.close()));
      await Promise.all([...queues.values()].map((queue) => queue.close()));
      queues.clear();
    },
  };
}
