import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { FfmpegError, runFfmpeg } from './ffmpeg-run.ts';
import { AUDIO_RENDITION, POSTER_FILE, VARIANT_PLAYLIST, buildHlsInvocation, type HlsJob } from './hls-command.ts';
import { AUDIO, outputFrameRate, planLadder } from './ladder.ts';
import {
  AUDIO_GROUP, averageBitRate, peakBitRate, readSegments, renderMasterPlaylist, type AudioRenditionEntry, type VariantEntry,
} from './master-playlist.ts';
import { DEFAULT_LIMITS, ladderRunLimits, type TranscodeLimits } from './limits.ts';
import { InvalidMediaError, probeMedia } from './probe.ts';

export const MASTER_PLAYLIST = 'master.m3u8';

export interface TranscodeOptions {
  input: string;
  outputDir: string;
  /** 2-6 s: shorter bloats playlists and requests, longer slows startup and rung switches. */
  segmentSeconds?: number;
  /** x264 preset; "veryfast" is the speed/size balance for a 2-core worker. */
  preset?: string;
  /** Size, length and run-time limits on the source (the defaults unless the operator set them). */
  limits?: TranscodeLimits;
  /** Stops ffmpeg: the job this transcode works for was lost to another worker. */
  signal?: AbortSignal;
  onProgress?: (percent: number) => void;
}

export interface Rendition {
  name: string;
  width: number;
  height: number;
  /** Peak bits per second, as declared in the master playlist: the rung's picture and the shared sound. */
  bandwidth: number;
  averageBandwidth: number;
  codecs: string;
  /** Relative to outputDir, e.g. "360p/index.m3u8"; its segments hold the picture only. */
  playlist: string;
}

export interface TranscodeResult {
  durationSeconds: number;
  /** The source's display size. */
  width: number;
  height: number;
  renditions: Rendition[];
  master: typeof MASTER_PLAYLIST;
  poster: typeof POSTER_FILE;
}

/** Probes the source and decides everything the ffmpeg run needs; rejects bad media up front. */
export async function planHlsJob(options: Omit<TranscodeOptions, 'onProgress' | 'signal'>): Promise<HlsJob> {
  const { input, outputDir, segmentSeconds = 4, preset = 'veryfast' } = options;
  if (!(segmentSeconds >= 2 && segmentSeconds <= 6)) throw new RangeError(`segmentSeconds must be 2-6, got ${segmentSeconds}`);
  const media = await probeMedia(input, options.limits);
  const frameRate = outputFrameRate(media.frameRate);
  const rungs = planLadder(media.width, media.height, frameRate);
  return { input, media, rungs, frameRate, outputDir, segmentSeconds, preset };
}

// The ladder is built in a hidden sibling and renamed onto outputDir only when complete, so a
// rerun replaces the old ladder whole and a crash never leaves a half ladder where players look.
// One attempt per outputDir at a time is the job runner's promise; leftovers of a crashed attempt
// are cleared by the next one.
export async function transcodeToHls(options: TranscodeOptions): Promise<TranscodeResult> {
  const outputDir = resolve(options.outputDir);
  const planned = await planHlsJob({ ...options, outputDir });
  await removeLeftovers(outputDir);
  const workDir = siblingPath(outputDir, 'tmp');
  // ffmpeg's own temporary files go beside the ladder, never into it, and leave with it.
  const tmpDir = `${workDir}-ffmpeg`;
  const job: HlsJob = { ...planned, outputDir: workDir };
  try {
    await Promise.all([tmpDir, join(workDir, AUDIO_RENDITION), ...job.rungs.map((r) => join(workDir, r.name))].map((dir) => mkdir(dir, { recursive: true })));
    await encodeLadder(job, { ...options, tmpDir });
    const renditions = await writeMasterPlaylist(job);
    options.signal?.throwIfAborted();
    await replaceDir(workDir, outputDir);
    options.onProgress?.(100);
    const { durationSeconds, width, height } = job.media;
    return { durationSeconds, width, height, renditions, master: MASTER_PLAYLIST, poster: POSTER_FILE };
  } catch (error) {
    await rm(workDir, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(tmpDir, { recursive: true, force: true });
  }
}

async function encodeLadder(job: HlsJob, options: TranscodeOptions & { tmpDir: string }): Promise<void> {
  const { onProgress, signal, tmpDir } = options;
  let reported = -1;
  const onTime = (seconds: number) => {
    // 100 is kept for the moment the ladder is in place, not when ffmpeg merely stops.
    const percent = Math.min(99, Math.floor((seconds / job.media.durationSeconds) * 100));
    if (percent > reported) onProgress?.((reported = percent));
  };
  const limits = ladderRunLimits(job.media.durationSeconds, options.limits ?? DEFAULT_LIMITS);
  await runFfmpeg(buildHlsInvocation(job), { ...limits, tmpDir, signal, ...(onProgress && { onTime }) }).catch((error: unknown) => {
    if (!(error instanceof FfmpegError)) throw error;
    if (error.failure === 'aborted') throw signal?.reason ?? error;
    // Generous limits that still ran out mean a file built to be expensive: trying again cannot help.
    if (error.failure === 'timeout') {
      throw new InvalidMediaError(`refused: transcoding it ran past its time limit of ${Math.round(limits.timeoutMs / 1000)} s`, job.input);
    }
    if (error.failure === 'cpu-limit') {
      throw new InvalidMediaError(`refused: transcoding it used up its ${limits.cpuSeconds} s of CPU time`, job.input);
    }
    // Probing reads only the headers; a file whose frames are garbage fails here instead.
    if (/Invalid data found|could not find codec parameters/i.test(error.stderr)) {
      throw new InvalidMediaError('not a video file: its picture could not be decoded', job.input);
    }
    throw error;
  });
}

async function writeMasterPlaylist(job: HlsJob): Promise<Rendition[]> {
  const audioPlaylist = `${AUDIO_RENDITION}/${VARIANT_PLAYLIST}`;
  const sound = await readSegments(join(job.outputDir, audioPlaylist));
  if (sound.segments.length === 0) throw new InvalidMediaError('not a video file: its sound could not be decoded', job.input);
  const audio: AudioRenditionEntry = { uri: audioPlaylist, name: 'Main', channels: AUDIO.channels };
  // A variant is its picture plus the audio group's sound (RFC 8216 4.3.4.2): both rates count.
  const audioPeak = peakBitRate(sound.segments, sound.targetDuration);
  const audioAverage = averageBitRate(sound.segments);
  const renditions: Rendition[] = [];
  const entries: VariantEntry[] = [];
  for (const rung of job.rungs) {
    const playlist = `${rung.name}/${VARIANT_PLAYLIST}`;
    const { targetDuration, segments } = await readSegments(join(job.outputDir, playlist));
    if (segments.length === 0) throw new InvalidMediaError('not a video file: no picture could be decoded', job.input);
    const bandwidth = peakBitRate(segments, targetDuration) + audioPeak;
    const averageBandwidth = averageBitRate(segments) + audioAverage;
    renditions.push({ name: rung.name, width: rung.width, height: rung.height, bandwidth, averageBandwidth, codecs: rung.codecs, playlist });
    entries.push({
      uri: playlist, width: rung.width, height: rung.height, frameRate: job.frameRate, codecs: rung.codecs,
      peakBitsPerSecond: bandwidth, averageBitsPerSecond: averageBandwidth, audioGroup: AUDIO_GROUP,
    });
  }
  // Players without a bandwidth estimate start on the first variant: a rung a phone on mobile
  // data sustains (highest up to 480p); ABR climbs from there.
  const start = Math.max(0, job.rungs.filter((r) => r.shortSide <= 480).length - 1);
  const ordered = [entries[start]!, ...entries.filter((_, i) => i !== start)];
  await writeFile(join(job.outputDir, MASTER_PLAYLIST), renderMasterPlaylist(ordered, [audio]));
  return renditions;
}

async function replaceDir(fresh: string, target: string): Promise<void> {
  // rename() cannot replace a non-empty directory: move the old ladder aside first, then drop it.
  const old = siblingPath(target, 'old');
  const hadOld = await rename(target, old).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
  try {
    await rename(fresh, target);
  } catch (error) {
    if (hadOld) await rename(old, target);
    throw error;
  }
  if (hadOld) await rm(old, { recursive: true, force: true });
}

function siblingPath(target: string, kind: 'tmp' | 'old'): string {
  return join(dirname(target), `.${basename(target)}.${kind}-${randomUUID()}`);
}

async function removeLeftovers(target: string): Promise<void> {
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const prefix = `.${basename(target)}.`;
  const names = await readdir(parent);
  await Promise.all(
    names
      .filter((n) => n.startsWith(`${prefix}tmp-`) || n.startsWith(`${prefix}old-`))
      .map((n) => rm(join(parent, n), { recursive: true, force: true })),
  );
}
