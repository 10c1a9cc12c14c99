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
  /** 1 on the first try. */
  attempt: number;
  reportProgress(percent: number): Promise<void>;
}

export type JobHandler<T> = (job: RunningJob<T>) => Promise<void>;

/** Thrown by a handler when trying again cannot help (a corrupt upload): the job goes straight to dead. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

export type JobStatus = 'waiting' | 'active' | 'completed' | 'dead';

export interface JobState {
  id: string;
  status: JobStatus;
  attempts: number;
  progress: number;
  lastError: string | null;
}

export interface EnqueueOptions {
  /** Enqueueing an id that already exists does nothing: enqueue is idempotent by id. */
  jobId?: string;
  /** Lower runs first. */
  priority?: number;
  delayMs?: number;
}

/** The job queue port: BullMQ on Redis, or the database-backed runner. */
export interface JobQueue {
  readonly kind: 'database' | 'bullmq';
  enqueue<T>(definition: JobDefinition<T>, data: T, options?: EnqueueOptions): Promise<string>;
  work<T>(definition: JobDefinition<T>, handler: JobHandler<T>): void;
  getJob(definition: JobDefinition<unknown>, id: string): Promise<JobState | null>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Delay before try `attempt + 1`: the base doubling each time, at most 10 minutes. */
export function retryDelayMs(backoffMs: number, attempt: number): number {
  return Math.min(600_000, backoffMs * 2 ** Math.max(0, attempt - 1));
}
