import { stat } from 'node:fs/promises';
import { ffprobeEnv, ffprobePath } from './ffmpeg-paths.ts';
import { FfmpegError, runFfmpegTool } from './ffmpeg-run.ts';
import { ACCEPTED_FORMAT_NAMES, DEFAULT_LIMITS, demuxerOf, MAX_FRAME_SIDE, PROBE_LIMITS, UNTRUSTED_INPUT_OPTIONS, type TranscodeLimits } from './limits.ts';

/** The upload itself is unusable; retrying the job cannot help, so the caller fails it for good. */
export class InvalidMediaError extends Error {
  override readonly name = 'InvalidMediaError';
  constructor(message: string, readonly file: string) {
    super(message);
  }
}

export interface MediaInfo {
  /** The demuxer ffmpeg must read it with: the one ffprobe found, so ffmpeg never guesses again. */
  format: string;
  durationSeconds: number;
  /** Display size: a phone clip stored landscape with a 90° rotation flag reports as vertical. */
  width: number;
  height: number;
  hasAudio: boolean;
  videoCodec: string;
  frameRate: number;
  /** Absolute stream index of the picture to transcode (cover art streams are skipped). */
  videoStreamIndex: number;
}

/**
 * Reads what ffmpeg will need to know about an upload, and refuses what it must not touch: formats
 * outside the allow-list, and files past the size, length or picture limits.
 */
export async function probeMedia(file: string, limits: TranscodeLimits = DEFAULT_LIMITS): Promise<MediaInfo> {
  // A missing file is a storage problem (maybe transient), not bad media: let ENOENT through.
  const { size } = await stat(file);
  if (size === 0) throw new InvalidMediaError('not a video file: the file is empty', file);
  if (size > limits.maxBytes) throw new InvalidMediaError(`refused: the file is larger than the ${megabytes(limits.maxBytes)} MB allowed`, file);

  const data = await runFfprobe(file);
  if (!data) throw new InvalidMediaError('not a video file: its format is not recognised', file);
  const format = demuxerOf(data.format.format_name ?? '');
  if (!format) throw notAccepted(data.format.format_name, file);
  const video = data.streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!video) {
    const what = data.streams.some((s) => s.codec_type === 'audio') ? 'it holds only audio' : 'it holds no moving picture';
    throw new InvalidMediaError(`not a video file: ${what}`, file);
  }
  // Some containers (raw streams, broken muxers) only know the stream's duration, or neither.
  const durationSeconds = [data.format.duration, video.duration].map(Number).find((d) => d > 0) ?? 0;
  const { width = 0, height = 0 } = video;
  if (!(durationSeconds > 0) || !(width > 0 && height > 0)) {
    throw new InvalidMediaError('not a video file: it has no playable length or picture size', file);
  }
  if (durationSeconds > limits.maxDurationSeconds) {
    throw new InvalidMediaError(`refused: it runs ${clock(durationSeconds)}, longer than the ${clock(limits.maxDurationSeconds)} allowed`, file);
  }
  if (Math.max(width, height) > MAX_FRAME_SIDE) {
    throw new InvalidMediaError(`refused: its picture is ${width}x${height}, larger than ${MAX_FRAME_SIDE} pixels a side`, file);
  }
  const turned = Math.abs(rotation(video)) % 180 === 90;
  return {
    format,
    durationSeconds,
    width: turned ? height : width,
    height: turned ? width : height,
    hasAudio: data.streams.some((s) => s.codec_type === 'audio'),
    videoCodec: video.codec_name ?? 'unknown',
    frameRate: frameRate(video),
    videoStreamIndex: video.index,
  };
}

const megabytes = (bytes: number) => Number((bytes / 1024 ** 2).toPrecision(3));
function clock(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

function notAccepted(formatName: string | undefined, file: string): InvalidMediaError {
  return new InvalidMediaError(`not a video file we accept: ${formatName ? `its format is ${formatName}, ` : ''}only ${ACCEPTED_FORMAT_NAMES} are`, file);
}

interface ProbeStream {
  index: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  disposition?: { attached_pic?: number };
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
}

interface ProbeData {
  streams: ProbeStream[];
  format: { format_name?: string; duration?: string };
}

// ffprobe's own JSON: it keeps side data (rotation) structured. Run with the upload limits, so a
// playlist or concat list is refused before it opens anything, and bounded in time. Null when
// ffprobe cannot read the file; a missing binary or a crashed ffprobe is our fault and rejects as such.
async function runFfprobe(file: string): Promise<ProbeData | null> {
  const args = ['-v', 'error', ...UNTRUSTED_INPUT_OPTIONS, '-show_format', '-show_streams', '-of', 'json', file];
  const stdout = await runFfmpegTool(ffprobePath(), args, { ...PROBE_LIMITS, env: ffprobeEnv() }).catch((error: unknown) => {
    if (!(error instanceof FfmpegError)) throw error;
    if (error.failure === 'timeout' || error.failure === 'cpu-limit')
      throw new InvalidMediaError('not a video file we can read: probing it took too long', file);
    // ffprobe names the demuxer it refused: "[hls @ 0x...] Format not on whitelist '...'".
    const refused = /\[(\w+) @ [^\]]*\] Format not on whitelist/.exec(error.stderr);
    if (refused) throw notAccepted(refused[1], file);
    if (error.exitCode === null) throw error;
    return null;
  });
  const data = stdout === null ? null : (JSON.parse(stdout) as Partial<ProbeData>);
  return data?.format && data.streams ? { streams: data.streams, format: data.format } : null;
}

// Newer ffprobe reports rotation as display-matrix side data, older muxers as a "rotate" tag.
function rotation(stream: ProbeStream): number {
  const fromMatrix = stream.side_data_list?.find((d) => typeof d.rotation === 'number')?.rotation;
  return Number(fromMatrix ?? stream.tags?.rotate ?? 0) || 0;
}

function frameRate(stream: ProbeStream): number {
  for (const rate of [stream.avg_frame_rate, stream.r_frame_rate]) {
    const [num, den] = (rate ?? '').split('/').map(Number);
    if (num && den) return num / den;
  }
  return 30;
}
