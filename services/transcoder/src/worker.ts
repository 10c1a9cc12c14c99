import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendEvent,
  defineJob,
  PermanentJobError,
  systemContext,
  type Database,
  type EventBus,
  type JobQueue,
  type Logger,
  type MediaStorage,
  type RunningJob,
} from '@cliffhanger/platform';
import { DEFAULT_LIMITS, type TranscodeLimits } from './limits.ts';
import { InvalidMediaError } from './probe.ts';
import { transcodeToHls } from './transcode.ts';

/** One uploaded source of one episode, to turn into its HLS ladder. */
export interface TranscodeEpisode {
  episodeId: string;
  sourceKey: string;
  uploadId: string;
}

// One at a time: a ladder run already keeps both cores of the embedded machine busy.
export const transcodeEpisodeJob = defineJob<TranscodeEpisode>('transcode-episode', { attempts: 3, backoffMs: 5_000, concurrency: 1 });

/** 4 s after a 2 s first one (FIRST_SEGMENT_SECONDS): fast rung switches without the request overhead of 2 s segments throughout. */
export const SEGMENT_SECONDS = 4;

/** Where an episode's ladder lives in media storage; a new ladder replaces the old one whole. */
export const ladderPrefixOf = (episodeId: string) => `episodes/${episodeId}/hls`;

// One job per upload, so asking twice queues once. BullMQ refuses ':' in custom ids.
export const transcodeJobIdOf = (upload: { episodeId: string; uploadId: string }) => `${upload.episodeId}.${upload.uploadId}`;

/** The queue side the catalog uses: request a transcode, follow its progress. */
export type TranscodeRequests = ReturnType<typeof transcodeRequests>;

export function transcodeRequests(queue: JobQueue) {
  return {
    async request(upload: TranscodeEpisode, priority: number): Promise<void> {
      await queue.enqueue(transcodeEpisodeJob, upload, { jobId: transcodeJobIdOf(upload), priority });
    },
    async progressOf(upload: { episodeId: string; uploadId: string }) {
      const job = await queue.getJob(transcodeEpisodeJob, transcodeJobIdOf(upload));
      return job && { state: job.status, percent: job.progress, attempts: job.attempts, lastError: job.lastError };
    },
  };
}

export interface TranscodeWorkerDeps {
  database: Database;
  bus: EventBus;
  queue: JobQueue;
  storage: MediaStorage;
  logger: Logger;
  /** Scratch space for ladders being built; the system's temporary directory by default. */
  workDir?: string;
  /** The operator's limits on sources (config); the defaults otherwise. */
  limits?: TranscodeLimits;
}

export function registerTranscodeWorker(deps: TranscodeWorkerDeps): void {
  deps.queue.work(transcodeEpisodeJob, (job) => transcodeEpisode(deps, job));
  // Every way a transcode job can die ends here: bad media, its last failed try, or workers that
  // crashed or stalled on it until its attempts ran out. The episode must not wait forever.
  deps.queue.onDead(transcodeEpisodeJob, async (dead) => {
    const { episodeId, uploadId } = dead.data;
    const reason = dead.permanent ? dead.error : `transcoding failed after ${dead.attempts} attempts: ${dead.error}`;
    deps.logger.warn({ episodeId, uploadId, attempts: dead.attempts, reason }, 'transcode failed for good');
    await recordOutcome(deps, `job:${dead.id}`, 'transcode.failed', { episodeId, uploadId, reason });
  });
}

async function recordOutcome(
  deps: TranscodeWorkerDeps,
  actor: string,
  type: 'transcode.completed' | 'transcode.failed',
  data: { episodeId: string; uploadId: string } & Record<string, unknown>,
): Promise<void> {
  await deps.database.transaction((tx) => appendEvent(tx, systemContext(actor), type, data, null));
  deps.bus.nudge();
}

/**
 * Builds the ladder of one upload in scratch space, moves it into storage as one step, then
 * records transcode.completed. Running it again rebuilds and replaces the same ladder. Bad media
 * fails at once (no retry); anything else is retried; the queue's dead-job hook records
 * transcode.failed. A worker that lost the job (it stalled past its lease) stops and publishes nothing.
 */
export async function transcodeEpisode(deps: TranscodeWorkerDeps, job: RunningJob<TranscodeEpisode>): Promise<void> {
  const { episodeId, sourceKey, uploadId } = job.data;
  const workDir = deps.workDir ?? tmpdir();
  await mkdir(workDir, { recursive: true });
  const scratch = await mkdtemp(join(workDir, `${SCRATCH_PREFIX}${episodeId.slice(0, 40)}-`));
  try {
    // The source comes from storage as a stream (S3, or another machine's disk) into scratch space.
    const source = join(scratch, 'source');
    await pipeline(deps.storage.read(sourceKey), createWriteStream(source), { signal: job.signal });
    const result = await transcodeToHls({
      input: source,
      outputDir: join(scratch, 'hls'),
      segmentSeconds: SEGMENT_SECONDS,
      ...(deps.limits && { limits: deps.limits }),
      signal: job.signal,
      onProgress: (percent) => void job.reportProgress(percent).catch(() => {}),
    });
    const mediaPrefix = ladderPrefixOf(episodeId);
    job.signal.throwIfAborted();
    await deps.storage.putDirectory(mediaPrefix, join(scratch, 'hls'));
    job.signal.throwIfAborted();
    await recordOutcome(deps, `job:${job.id}`, 'transcode.completed', { episodeId, uploadId, ...result, mediaPrefix });
  } catch (error) {
    if (error instanceof InvalidMediaError) throw new PermanentJobError(error.message);
    throw error;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const SCRATCH_PREFIX = 'ladder-';
const HOUR_MS = 3_600_000;

/**
 * Removes what crashed transcodes left: their scratch folders, and half-written copies in media
 * storage. Other workers may share both places (one volume for every replica), so only what is
 * older than any live transcode can be goes: a ladder run's ceiling plus an hour for scratch,
 * an hour for storage's staging copies.
 */
export async function sweepCrashLeftovers(deps: TranscodeWorkerDeps): Promise<{ scratch: number; staging: number }> {
  const workDir = deps.workDir ?? tmpdir();
  const cutoff = Date.now() - ((deps.limits ?? DEFAULT_LIMITS).maxRunSeconds * 1000 + HOUR_MS);
  const names = await readdir(workDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  let scratch = 0;
  for (const name of names.filter((n) => n.startsWith(SCRATCH_PREFIX))) {
    const folder = join(workDir, name);
    // Gone already: another replica swept it first.
    const modified = (await stat(folder).catch(() => null))?.mtimeMs ?? Infinity;
    if (modified >= cutoff) continue;
    await rm(folder, { recursive: true, force: true });
    scratch += 1;
  }
  const staging = await deps.storage.removeStaging(HOUR_MS);
  return { scratch, staging };
}
