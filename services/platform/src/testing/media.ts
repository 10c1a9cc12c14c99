import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The ffmpeg and ffprobe a test renders and probes with (the transcoder's choice: `ffmpegTools()`). */
export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
  /** Environment ffprobe needs (the npm static build reads its own libraries). */
  env?: NodeJS.ProcessEnv;
}

export async function scratchDir(prefix = 'cliffhanger-media-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export interface ClipOptions {
  /** Where to write it; without, the clip comes back as bytes (for uploads). */
  file?: string;
  seconds?: number;
  width?: number;
  height?: number;
  /** Frames per second (default 24, as drama is shot). */
  rate?: number;
  audio?: boolean;
  /** Stores it sideways with a display-rotation flag, as phones do. */
  rotate?: number;
}

/**
 * A tiny real clip: a test pattern with a tone, small enough for two shared cores (2 s, 240x426 at
 * 24 fps by default). Written to `options.file`, or answered as bytes without one. The one clip maker
 * of the suites: they pass their package's ffmpeg (the transcoder's `ffmpegTools()`).
 */
export async function makeClip(tools: FfmpegTools, options: ClipOptions & { file: string }): Promise<void>;
export async function makeClip(tools: FfmpegTools, options?: ClipOptions & { file?: undefined }): Promise<Buffer>;
export async function makeClip(tools: FfmpegTools, options: ClipOptions = {}): Promise<Buffer | void> {
  if (!options.file) {
    const dir = await scratchDir('cliffhanger-clip-');
    try {
      const file = join(dir.path, 'clip.mp4');
      await makeClip(tools, { ...options, file });
      return await readFile(file);
    } finally {
      await dir.remove();
    }
  }
  const { file, seconds = 2, width = 240, height = 426, rate = 24 } = options;
  const args = ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=${rate}:duration=${seconds}`];
  if (options.audio !== false) args.push('-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${seconds}`, '-ac', '1', '-c:a', 'aac', '-shortest');
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p');
  if (!options.rotate) return void (await run(tools.ffmpeg, [...args, file]));
  // ffmpeg drops the rotate tag on streams it encodes; only a stream copy keeps it.
  const upright = `${file}.upright.mp4`;
  await run(tools.ffmpeg, [...args, upright]);
  await run(tools.ffmpeg, ['-v', 'error', '-y', '-i', upright, '-c', 'copy', '-metadata:s:v', `rotate=${options.rotate}`, file]);
  await rm(upright);
}

export async function makeAudioOnly(tools: FfmpegTools, file: string): Promise<void> {
  await run(tools.ffmpeg, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=duration=1', file]);
}

export interface ProbedStream {
  codec_type: string;
  codec_name: string;
  profile?: string;
  level?: number;
  width?: number;
  height?: number;
  channels?: number;
}

export async function probeStreams(tools: FfmpegTools, file: string): Promise<ProbedStream[]> {
  const { stdout } = await run(tools.ffprobe, ['-v', 'error', '-show_streams', '-of', 'json', file], { env: tools.env });
  return JSON.parse(stdout).streams;
}

export async function isJpeg(file: string): Promise<boolean> {
  const bytes = await readFile(file);
  return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** Bytes that are no video at all: uploads of them fail at once. */
export const notAVideo = Buffer.from('this is a text file, not a video\n'.repeat(20));

/** One still JPEG picture, as an upload made by mistake would be. */
export async function makeStill(tools: FfmpegTools, file: string, options: { width?: number; height?: number } = {}): Promise<void> {
  const { width = 90, height = 160 } = options;
  await run(tools.ffmpeg, ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}`, '-frames:v', '1', file]);
}
