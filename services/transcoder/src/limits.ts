import { availableParallelism } from 'node:os';

/**
 * Demuxers an upload may be read with, by the names ffprobe reports (`format_name`). Everything
 * else is refused before ffmpeg sees the file: playlists (hls) and concat lists open other files or
 * URLs, image2 expands name patterns, and each further demuxer is more attack surface.
 */
export const ACCEPTED_FORMATS: Readonly<Record<string, string>> = {
  'mov,mp4,m4a,3gp,3g2,mj2': 'mov',
  'matroska,webm': 'matroska',
  avi: 'avi',
  mpegts: 'mpegts',
  flv: 'flv',
};

export const ACCEPTED_FORMAT_NAMES = 'MP4/MOV, Matroska/WebM, AVI, MPEG-TS or FLV';

/** The demuxer to read an upload with, or null when its probed format is not accepted. */
export const demuxerOf = (formatName: string): string | null => ACCEPTED_FORMATS[formatName] ?? null;

/** No side of a picture longer than this (DCI 4K); it also caps the pixels a decoder may allocate. */
export const MAX_FRAME_SIDE = 4096;

/**
 * Input options for every ffmpeg and ffprobe run on an upload: local files only (no network, no
 * pipes: we use none), only the accepted demuxers, and no frame larger than the limit, whatever the
 * stream's headers said.
 */
export const UNTRUSTED_INPUT_OPTIONS: readonly string[] = [
  '-protocol_whitelist', 'file',
  '-format_whitelist', Object.values(ACCEPTED_FORMATS).join(','),
  '-max_pixels', String(MAX_FRAME_SIDE * MAX_FRAME_SIDE),
];

export interface TranscodeLimits {
  /** Largest source file. */
  maxBytes: number;
  /** Longest source. */
  maxDurationSeconds: number;
  /** Wall-clock ceiling of one ladder run, whatever the source's length. */
  maxRunSeconds: number;
}

export const DEFAULT_LIMITS: TranscodeLimits = {
  maxBytes: 2 * 1024 ** 3,
  maxDurationSeconds: 30 * 60,
  maxRunSeconds: 3 * 3600,
};

/** The limits as the operator set them (README: MAX_UPLOAD_MB, TRANSCODE_MAX_MINUTES, TRANSCODE_TIMEOUT_MINUTES). */
export function limitsOf(config: { MAX_UPLOAD_MB: number; TRANSCODE_MAX_MINUTES: number; TRANSCODE_TIMEOUT_MINUTES: number }): TranscodeLimits {
  return {
    maxBytes: config.MAX_UPLOAD_MB * 1024 ** 2,
    maxDurationSeconds: config.TRANSCODE_MAX_MINUTES * 60,
    maxRunSeconds: config.TRANSCODE_TIMEOUT_MINUTES * 60,
  };
}

export interface RunLimits {
  /** Killed after this long. */
  timeoutMs: number;
  /**
   * CPU seconds of all its threads; the kernel enforces it, so it holds even for an ffmpeg left
   * running by a worker that died.
   */
  cpuSeconds: number;
}

/**
 * A ladder run's budget: two minutes plus six times the source's length (a 2-core worker encodes
 * a 1080p ladder at about real time), within the operator's ceiling; CPU for every core throughout.
 */
export function ladderRunLimits(durationSeconds: number, limits: TranscodeLimits): RunLimits {
  const seconds = Math.min(limits.maxRunSeconds, 120 + 6 * durationSeconds);
  return { timeoutMs: Math.round(seconds * 1000), cpuSeconds: Math.max(1, Math.ceil(seconds * availableParallelism())) };
}

/** ffprobe reads headers and a few seconds of packets; a file that keeps it busy longer is hostile. */
export const PROBE_LIMITS: RunLimits = { timeoutMs: 60_000, cpuSeconds: 60 };
