import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { ffprobeEnv, ffprobePath } from './ffmpeg-paths.ts';

const execFileAsync = promisify(execFile);

/** The upload itself is unusable; retrying the job cannot help, so the caller fails it for good. */
export class InvalidMediaError extends Error {
  override readonly name = 'InvalidMediaError';
  constructor(message: string, readonly file: string) {
    super(message);
  }
}

export interface MediaInfo {
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

// Demuxers that ffprobe happily "opens" although the file is no video: still images and text.
const NOT_VIDEO_FORMATS = /^(image2|tty|\w+_pipe)$/;

export async function probeMedia(file: string): Promise<MediaInfo> {
  // A missing file is a storage problem (maybe transient), not bad media: let ENOENT through.
  const { size } = await stat(file);
  if (size === 0) throw new InvalidMediaError('not a video file: the file is empty', file);

  const data = await runFfprobe(file);
  if (!data) throw new InvalidMediaError('not a video file: its format is not recognised', file);
  const video = data.streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!video || NOT_VIDEO_FORMATS.test(data.format.format_name ?? '')) {
    const what = data.streams.some((s) => s.codec_type === 'audio') ? 'it holds only audio' : 'it holds no moving picture';
    throw new InvalidMediaError(`not a video file: ${what}`, file);
  }
  // Some containers (raw streams, broken muxers) only know the stream's duration, or neither.
  const durationSeconds = [data.format.duration, video.duration].map(Number).find((d) => d > 0) ?? 0;
  const { width = 0, height = 0 } = video;
  if (!(durationSeconds > 0) || !(width > 0 && height > 0)) {
    throw new InvalidMediaError('not a video file: it has no playable length or picture size', file);
  }
  const turned = Math.abs(rotation(video)) % 180 === 90;
  return {
    durationSeconds,
    width: turned ? height : width,
    height: turned ? width : height,
    hasAudio: data.streams.some((s) => s.codec_type === 'audio'),
    videoCodec: video.codec_name ?? 'unknown',
    frameRate: frameRate(video),
    videoStreamIndex: video.index,
  };
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

// ffprobe's own JSON rather than fluent-ffmpeg's ffprobe(): the JSON keeps side data (rotation)
// structured, and the run needs its own environment (see ffprobeEnv). Null when ffprobe cannot
// read the file; a missing binary or a crashed ffprobe is our fault and rejects as such.
async function runFfprobe(file: string): Promise<ProbeData | null> {
  const args = ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', file];
  const result = await execFileAsync(ffprobePath(), args, { env: ffprobeEnv(), maxBuffer: 16 << 20 }).catch(
    (error: NodeJS.ErrnoException & { code?: number | string }) => {
      if (typeof error.code === 'number') return null;
      throw error;
    },
  );
  const data = result && (JSON.parse(result.stdout) as Partial<ProbeData>);
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
