import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ffmpegPath, ffprobeEnv, ffprobePath } from '../src/index.ts';

const run = promisify(execFile);

export async function scratchDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'transcoder-test-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A tiny test-pattern clip; `rotate` stores it sideways with a display-rotation flag, as phones do. */
export async function makeClip(file: string, o: { seconds: number; width: number; height: number; audio?: boolean; rotate?: number }) {
  const args = ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${o.width}x${o.height}:rate=30:duration=${o.seconds}`];
  if (o.audio !== false) args.push('-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${o.seconds}`, '-ac', '1');
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p');
  if (!o.rotate) return void (await run(ffmpegPath(), [...args, file]));
  // ffmpeg drops the rotate tag on streams it encodes; only a stream copy keeps it.
  const upright = `${file}.upright.mp4`;
  await run(ffmpegPath(), [...args, upright]);
  await run(ffmpegPath(), ['-v', 'error', '-y', '-i', upright, '-c', 'copy', '-metadata:s:v', `rotate=${o.rotate}`, file]);
  await rm(upright);
}

export async function makeAudioOnly(file: string) {
  await run(ffmpegPath(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=duration=1', file]);
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

export async function probeStreams(file: string): Promise<ProbedStream[]> {
  const { stdout } = await run(ffprobePath(), ['-v', 'error', '-show_streams', '-of', 'json', file], { env: ffprobeEnv() });
  return JSON.parse(stdout).streams;
}

export async function isJpeg(file: string): Promise<boolean> {
  const bytes = await readFile(file);
  return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}
