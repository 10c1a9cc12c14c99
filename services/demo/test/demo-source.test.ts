import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJpeg, probeStreams as probeWith, scratchDir } from '@cliffhanger/platform/testing';
import { ffmpegTools, probeMedia } from '@cliffhanger/transcoder';
import { renderDemoCover, renderDemoEpisode } from '../src/index.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const probeStreams = (file: string) => probeWith(ffmpegTools(), file);

// Titles carry the characters that break inline drawtext escaping.
const TITLE = `The CEO's 100% Secret: "Married" to a Stranger`;

describe('demo sources', () => {
  let dir: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    dir = await scratchDir();
  });
  afterAll(() => dir.remove());

  it('a demo episode is a real vertical video with sound, as long as asked', async () => {
    const outFile = join(dir.path, 'ep.mp4');
    await renderDemoEpisode({ outFile, seriesTitle: TITLE, episodeNumber: 7, seconds: 2, width: 240, height: 426, hue: 200 });
    expect(await probeMedia(outFile)).toMatchObject({
      width: 240, height: 426, hasAudio: true, videoCodec: 'h264', durationSeconds: expect.closeTo(2, 1),
    });
  });

  it('a demo cover is a JPEG poster of the requested size', async () => {
    const outFile = join(dir.path, 'cover.jpg');
    await renderDemoCover({ outFile, title: TITLE, hue: 320, width: 270, height: 480 });
    expect(await isJpeg(outFile)).toBe(true);
    expect((await probeStreams(outFile))[0]).toMatchObject({ width: 270, height: 480 });
  });
});
