/** A kind of job and its retry policy, shared by the process that enqueues and the one that works. */
export interface JobDefinition<T> {
  readonly queue: string;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly concurrency: number;
  /** Only a type marker: never read. */
  readonly _data?: T;
}

export function defineJob<T>(queue: string, policy: Partial<Omit<JobDefinition<T>, 'queue'>> = {}): JobDefinition<T> {
  return { queue, attempts: policy.attempts ?? 3, backoffMs: policy.backoffMs ?? 1_000, concurrency: policy.concurrency ?? 1 };
}

export interface RunningJob<T> {
  id: string;
  data: T;
  /** 1 on the first try; every claim counts, whether the try before it threw or its worker stopped. */
  attempt: number;
  /**
   * Aborted when this worker has lost the job: its lease ran out (it stalled, or could not reach the
   * queue) and the job is another claim's now. Whatever the handler still does is refused; it should stop.
   */
  signal: AbortSignal;
  reportProgress(percent: number): Promise<void>;
}

export type JobHandler<T> = (job: RunningJob<T>) => Promise<void>;

/** Thrown by a handler when trying again cannot help (a corrupt upload): the job goes straight to dead. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/** A job that ended dead, as a dead-job hook sees it. */
export interface DeadJob<T> {
  id: string;
  data: T;
  /** Tries the handler was given. */
  attempts: number;
  /** Why the last try failed: the handler's error, or WORKER_LOST. */
  error: string;
  /** The handler threw PermanentJobError: it was not tried again. */
  permanent: boolean;
}

/**
 * Runs once a job is dead, whatever killed it: a permanent error, its last failed try, or workers
 * that kept crashing or stalling on it (no handler's catch runs then). At least once: a hook that
 * throws, or a process that dies in it, is called again later; it must tolerate a repeat.
 */
export type DeadJobHook<T> = (job: DeadJob<T>) => Promise<void>;

/** The error of a try whose worker went silent (killed, out of memory, a blocked event loop) until its lease ran out. */
export const WORKER_LOST = 'the worker stopped answering (it crashed or stalled) and its lease ran out';

export type JobStatus = 'waiting' | 'active' | 'completed' | 'dead';

export interface JobState {
  id: string;
  status: JobStatus;
  attempts: number;
  progress: number;
  lastError: string | null;
}

export interface QueueDepth {
  queue: string;
  status: Exclude<JobStatus, 'completed'>;
  jobs: number;
}

/** One job of a queue's listing, as the operator console shows it. */
export interface ListedJob extends JobState {
  queue: string;
  data: unknown;
  createdAt: string;
  /** When it ended dead (or completed); null while it waits or runs. */
  finishedAt: string | null;
}

export interface JobPage {
  items: ListedJob[];
  /** Jobs of that queue in that state, whatever the page. */
  total: number;
}

export interface ListJobsOptions {
  offset?: number;
  limit?: number;
}

export interface EnqueueOptions {
  /** Enqueueing an id that already exists does nothing: enqueue is idempotent by id. */
  jobId?: string;
  /** Lower runs first. */
  priority?: number;
  delayMs?: number;
}

/**
 * The job queue port: BullMQ on Redis, or the database-backed runner. Every claim of a job counts
 * against its attempts and holds a lease its worker renews; a worker whose lease ran out has lost
 * the job (it can no longer renew, complete or fail it), and a job whose attempts are used up
 * ends dead instead of being claimed again, so every job ends.
 */
export interface JobQueue {
  readonly kind: 'database' | 'bullmq';
  enqueue<T>(definition: JobDefinition<T>, data: T, options?: EnqueueOptions): Promise<string>;
  work<T>(definition: JobDefinition<T>, handler: JobHandler<T>): void;
  /** Registers what to do when a job of this kind ends dead; runs in the processes that work it. */
  onDead<T>(definition: JobDefinition<T>, hook: DeadJobHook<T>): void;
  getJob(definition: JobDefinition<unknown>, id: string): Promise<JobState | null>;
  /**
   * One page of a queue's jobs in a state (waiting counts delayed ones, dead the failed ones), newest
   * first, for the console; asks the queue by name, so any process may list jobs others enqueue and work.
   */
  list(queue: string, status: Exclude<JobStatus, 'completed'>, options?: ListJobsOptions): Promise<JobPage>;
  /** Jobs waiting (delayed included), running and dead, per queue this process enqueues to or works (the /metrics depth). */
  depth(): Promise<QueueDepth[]>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Delay before try `attempt + 1`: the base doubling each time, at most 10 minutes. */
export function retryDelayMs(backoffMs: number, attempt: number): number {
  return Math.min(600_000, backoffMs * 2 ** Math.max(0, attempt - 1));
}
