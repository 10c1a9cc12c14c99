import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
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
  type JobStatus,
  type ListedJob,
  type QueueDepth,
} from './queue.ts';

export interface BullmqQueueOptions {
  redisUrl: string;
  /** Key prefix in Redis; tests give each run its own. */
  prefix?: string;
  /** BullMQ's lock duration, and how often workers look for jobs whose lock ran out (30 s by default). */
  leaseMs?: number;
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

// BullMQ's states each status of the port gathers.
const statesOf: Record<Exclude<JobStatus, 'completed'>, ('waiting' | 'prioritized' | 'delayed' | 'waiting-children' | 'active' | 'failed')[]> = {
  waiting: ['waiting', 'prioritized', 'delayed', 'waiting-children'],
  active: ['active'],
  dead: ['failed'],
};

const statusOf: Record<string, JobState['status']> = {
  waiting: 'waiting',
  'waiting-children': 'waiting',
  prioritized: 'waiting',
  delayed: 'waiting',
  active: 'active',
  completed: 'completed',
  failed: 'dead',
};

// BullMQ's reasons for failing a job whose workers kept going silent on it.
const STALLED_OUT = new Set(['job stalled more than allowable limit', 'job started more than allowable limit']);
// What BullMQ says when a worker that lost its lock tries to renew, complete or fail the job.
const LOST_LOCK = /could not renew lock|missing lock|lock mismatch/i;

/**
 * BullMQ on Redis: production's queue. Failed jobs stay in BullMQ's failed set, the dead letters.
 * Every start of a job counts against its attempts (maxStartedAttempts), so a job whose worker
 * stalls or dies on it fails like one that throws, and the dead-job hooks run from the worker's
 * 'failed' event, which also sees the jobs no handler's catch saw.
 */
export function createBullmqQueue(logger: Logger, options: BullmqQueueOptions): JobQueue {
  const connection = connectionOf(options.redisUrl);
  const prefix = options.prefix ?? 'cliffhanger';
  const leaseMs = options.leaseMs ?? 30_000;
  const queues = new Map<string, Queue>();
  const pending: { definition: JobDefinition<unknown>; handler: JobHandler<unknown> }[] = [];
  const worked = new Set<string>();
  const deadHooks = new Map<string, DeadJobHook<unknown>[]>();
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

  // Tries the handler was given: a job failed for stalling out is started once more only to be failed.
  const attemptsOf = (job: Job, definition: JobDefinition<unknown>) => Math.min(job.attemptsStarted, definition.attempts);

  async function bury(definition: JobDefinition<unknown>, job: Job, error: Error): Promise<void> {
    const stalledOut = STALLED_OUT.has(error.message);
    const dead = {
      id: job.id!,
      data: job.data,
      attempts: attemptsOf(job, definition),
      error: stalledOut ? WORKER_LOST : error.message,
      permanent: error.name === 'UnrecoverableError' && !stalledOut,
    };
    for (const hook of deadHooks.get(definition.queue) ?? []) {
      // The job is already in the failed set: a hook that fails here is not run again.
      await hook(dead).catch((hookError: unknown) =>
        logger.error({ queue: definition.queue, jobId: job.id, err: hookError }, 'dead-job hook failed'),
      );
    }
  }

  function startWorker(definition: JobDefinition<unknown>, handler: JobHandler<unknown>): void {
    // Signals of the jobs running here, aborted when their lock cannot be renewed: they are lost.
    const lost = new Map<string, AbortController>();
    const worker = new Worker(
      definition.queue,
      async (job: Job) => {
        const controller = new AbortController();
        lost.set(job.id!, controller);
        try {
          await handler({
            id: job.id!,
            data: job.data,
            attempt: job.attemptsStarted,
            signal: controller.signal,
            reportProgress: (percent) => job.updateProgress(Math.round(percent)),
          });
        } catch (error) {
          if (error instanceof PermanentJobError) throw new UnrecoverableError(error.message);
          throw error;
        } finally {
          if (lost.get(job.id!) === controller) lost.delete(job.id!);
        }
      },
      {
        connection,
        prefix,
        concurrency: definition.concurrency,
        lockDuration: leaseMs,
        stalledInterval: leaseMs,
        maxStartedAttempts: definition.attempts,
        // Stalls count through maxStartedAttempts, with throws, rather than on a counter of their own.
        maxStalledCount: definition.attempts,
        settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(definition.backoffMs, attemptsMade) },
      },
    );
    worker.on('error', (error) => {
      if (LOST_LOCK.test(error.message)) logger.warn({ queue: definition.queue, err: error }, 'job lost: its lock ran out');
      else logger.error({ err: error, queue: definition.queue }, 'bullmq worker error');
    });
    worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const id of jobIds) lost.get(id)?.abort(new Error(WORKER_LOST));
    });
    worker.on('failed', (job, error) => {
      if (!job) return;
      const dead = Boolean(job.finishedOn);
      logger.warn({ queue: definition.queue, jobId: job.id, attempt: job.attemptsStarted, dead, err: error }, 'job failed');
      if (dead) void bury(definition, job, error);
    });
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
      worked.add(definition.queue);
    },
    onDead(definition, hook) {
      deadHooks.set(definition.queue, [...(deadHooks.get(definition.queue) ?? []), hook as DeadJobHook<unknown>]);
    },
    async getJob(definition, id) {
      // The state first, then the job: the move to failed writes its reason in the same step, so a
      // job read after its state shows the reason that state came with (not the other way round).
      const queue = queueOf(definition.queue);
      const state = await queue.getJobState(id);
      const job = state === 'unknown' ? undefined : await queue.getJob(id);
      if (!job) return null;
      return {
        id,
        status: statusOf[state] ?? 'waiting',
        attempts: attemptsOf(job, definition),
        progress: typeof job.progress === 'number' ? job.progress : 0,
        lastError: job.failedReason ? (STALLED_OUT.has(job.failedReason) ? WORKER_LOST : job.failedReason) : null,
      };
    },
    async list(name, status, { offset = 0, limit = 50 } = {}) {
      const queue = queueOf(name);
      const states = statesOf[status];
      const counts = await queue.getJobCounts(...states);
      const total = states.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
      // getJobs pages each state apart, so a page across several is cut state by state, in the order of statesOf.
      const jobs: Job[] = [];
      let skip = offset;
      for (const state of states) {
        const inState = counts[state] ?? 0;
        if (skip >= inState) {
          skip -= inState;
          continue;
        }
        const wanted = limit - jobs.length;
        if (wanted <= 0) break;
        jobs.push(...(await queue.getJobs([state], skip, skip + wanted - 1, false)));
        skip = 0;
      }
      const items = jobs
        .filter((job): job is Job => Boolean(job))
        .map(
          (job): ListedJob => ({
            id: job.id!,
            queue: name,
            status,
            data: job.data,
            attempts: Math.min(job.attemptsStarted, job.opts.attempts ?? job.attemptsStarted),
            progress: typeof job.progress === 'number' ? job.progress : 0,
            lastError: job.failedReason ? (STALLED_OUT.has(job.failedReason) ? WORKER_LOST : job.failedReason) : null,
            createdAt: new Date(job.timestamp).toISOString(),
            finishedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
          }),
        );
      return { items, total };
    },
    async depth() {
      const names = new Set([...queues.keys(), ...worked]);
      const depths: QueueDepth[] = [];
      for (const name of names) {
        const counts = await queueOf(name).getJobCounts('waiting', 'prioritized', 'delayed', 'waiting-children', 'active', 'failed');
        const waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0) + (counts['waiting-children'] ?? 0);
        depths.push({ queue: name, status: 'waiting', jobs: waiting }, { queue: name, status: 'active', jobs: counts.active ?? 0 }, { queue: name, status: 'dead', jobs: counts.failed ?? 0 });
      }
      return depths;
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
