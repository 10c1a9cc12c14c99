import { mkdir, mkdtemp, rm } from 'node:fs/promises';
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

/** 4 s: fast startup and rung switches, without the request overhead of 2 s segments. */
export const SEGMENT_SECONDS = 4;

/** Where an episode's ladder lives in media storage; a new ladder replaces the old one whole. */
export const ladderPrefixOf = (episodeId: string) => `episodes/${episodeId}/hls`;

// One job per upload, so asking twice queues once. BullMQ refuses ':' in custom ids.
export const transcodeJobIdOf = (upload: { episodeId: string; uploadId: string }) => `${upload.episodeId}.${upload.uploadId}`;

/** The queue side the catalog uses: request a transcode, follow its progress. */
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
}

export function registerTranscodeWorker(deps: TranscodeWorkerDeps): void {
  deps.queue.work(transcodeEpisodeJob, (job) => transcodeEpisode(deps, job));
}

/**
 * Builds the ladder of one upload in scratch space, moves it into storage as one step, then
 * records transcode.completed. Running it again rebuilds and replaces the same ladder. Bad media
 * fails at once (transcode.failed, no retry); anything else is retried, and the last failed try
 * records transcode.failed so the episode does not wait forever.
 */
export async function transcodeEpisode(deps: TranscodeWorkerDeps, job: RunningJob<TranscodeEpisode>): Promise<void> {
  const { episodeId, sourceKey, uploadId } = job.data;
  const context = systemContext(`job:${job.id}`);
  const workDir = deps.workDir ?? tmpdir();
  await mkdir(workDir, { recursive: true });
  const scratch = await mkdtemp(join(workDir, `ladder-${episodeId.slice(0, 40)}-`));
  const record = async (type: 'transcode.completed' | 'transcode.failed', data: Record<string, unknown>) => {
    await deps.database.transaction((tx) => appendEvent(tx, context, type, { episodeId, uploadId, ...data }, null));
    deps.bus.nudge();
  };
  try {
    const result = await transcodeToHls({
      input: deps.storage.localPath(sourceKey),
      outputDir: join(scratch, 'hls'),
      segmentSeconds: SEGMENT_SECONDS,
      onProgress: (percent) => void job.reportProgress(percent).catch(() => {}),
    });
    const mediaPrefix = ladderPrefixOf(episodeId);
    await deps.storage.putDirectory(mediaPrefix, join(scratch, 'hls'));
    await record('transcode.completed', { ...result, mediaPrefix });
  } catch (error) {
    const permanent = error instanceof InvalidMediaError;
    if (permanent || job.attempt >= transcodeEpisodeJob.attempts) {
      const reason = permanent ? error.message : `transcoding failed after ${job.attempt} attempts: ${(error as Error).message}`;
      deps.logger.warn({ episodeId, uploadId, attempt: job.attempt, err: error }, 'transcode failed for good');
      await record('transcode.failed', { reason });
    }
    throw permanent ? new PermanentJobError(error.message) : error;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
