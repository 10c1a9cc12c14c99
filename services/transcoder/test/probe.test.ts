import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip } from '@cliffhanger/platform/testing';
import { InvalidMediaError, probeMedia } from '../src/index.ts';
import { makeAudioOnly, makeStill, scratchDir, tools } from './media.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

describe('probeMedia', () => {
  let dir: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    dir = await scratchDir();
  });
  afterAll(() => dir.remove());

  it('reads duration, size, codec and audio of a video', async () => {
    const file = join(dir.path, 'clip.mp4');
    await makeClip(tools, { file, rate: 30, seconds: 1.5, width: 180, height: 320 });
    expect(await probeMedia(file)).toMatchObject({
      durationSeconds: expect.closeTo(1.5, 1),
      width: 180,
      height: 320,
      hasAudio: true,
      videoCodec: 'h264',
      frameRate: 30,
    });
  });

  it('an MPEG-TS upload probes like any other video', async () => {
    const file = join(dir.path, 'camera.ts');
    await makeClip(tools, { file, rate: 30, seconds: 1, width: 320, height: 180 });
    expect(await probeMedia(file)).toMatchObject({ width: 320, height: 180, hasAudio: true, videoCodec: 'h264' });
  });

  it('a phone clip stored sideways with a rotation flag reports its display size', async () => {
    const file = join(dir.path, 'sideways.mp4');
    await makeClip(tools, { file, rate: 30, seconds: 1, width: 320, height: 180, audio: false, rotate: 90 });
    expect(await probeMedia(file)).toMatchObject({ width: 180, height: 320, hasAudio: false });
  });

  it.each([
    ['random bytes', 'random.mp4', () => randomBytes(64 * 1024), 'not a video file'],
    ['a text file', 'notes.mp4', () => 'Episode 1 script\nINT. OFFICE - NIGHT\n'.repeat(50), 'not a video file'],
    ['an empty file', 'empty.mp4', () => '', 'not a video file: the file is empty'],
  ])('%s is rejected as invalid media', async (_, name, content, message) => {
    const file = join(dir.path, name);
    await writeFile(file, content());
    const error = await probeMedia(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidMediaError);
    expect((error as Error).message).toContain(message);
  });

  it('an audio-only file is rejected as invalid media saying so', async () => {
    const file = join(dir.path, 'song.m4a');
    await makeAudioOnly(file);
    await expect(probeMedia(file)).rejects.toThrow(new InvalidMediaError('not a video file: it holds only audio', file));
  });

  it('a still picture uploaded by mistake is rejected as invalid media', async () => {
    const file = join(dir.path, 'poster.jpg');
    await makeStill(file);
    await expect(probeMedia(file)).rejects.toBeInstanceOf(InvalidMediaError);
  });

  it('a broken ffprobe install is not blamed on the upload', async () => {
    const file = join(dir.path, 'fine.mp4');
    await makeClip(tools, { file, rate: 30, seconds: 1, width: 160, height: 90 });
    process.env.FFPROBE_PATH = join(dir.path, 'no-such-ffprobe');
    try {
      const error = await probeMedia(file).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(InvalidMediaError);
    } finally {
      delete process.env.FFPROBE_PATH;
    }
  });

  it('a missing file is not invalid media: storage may catch up, so the job can retry', async () => {
    const error = await probeMedia(join(dir.path, 'missing.mp4')).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(InvalidMediaError);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});
