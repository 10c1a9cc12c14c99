import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeClip } from '@cliffhanger/platform/testing';
import {
  DEFAULT_LIMITS, FfmpegError, ffmpegPath, ffprobePath, InvalidMediaError, probeMedia, runFfmpeg, transcodeToHls,
} from '../src/index.ts';
import { scratchDir, tools } from './media.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

let dir: Awaited<ReturnType<typeof scratchDir>>;
let clip: string;
let server: Server;
let requests: string[];
let origin: string;

beforeAll(async () => {
  dir = await scratchDir();
  clip = join(dir.path, 'clip.mp4');
  await makeClip(tools, { file: clip, rate: 30, seconds: 4, width: 640, height: 360 });
  // Stands for any address a hostile upload might make the worker fetch.
  requests = [];
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.end();
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.close();
  await dir.remove();
});

afterEach(() => {
  delete process.env.FFMPEG_PATH;
  delete process.env.FFPROBE_PATH;
  vi.unstubAllEnvs();
});

const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

/** A media playlist, as an uploaded ".m3u8" would be: ffmpeg follows every segment URI in it. */
const playlist = (segment: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\n${segment}\n#EXT-X-ENDLIST\n`;

describe('an upload that is not a plain video file', () => {
  it('an uploaded playlist referencing an http URL is refused as invalid media without any network access', async () => {
    const file = join(dir.path, 'episode.m3u8');
    await writeFile(file, playlist(`${origin}/x.ts`));
    const error = await refusal(probeMedia(file));
    expect(error).toBeInstanceOf(InvalidMediaError);
    expect((error as Error).message).toMatch(/not a video file we accept: its format is hls/);
    const transcoded = await refusal(transcodeToHls({ input: file, outputDir: join(dir.path, 'out-remote') }));
    expect(transcoded).toBeInstanceOf(InvalidMediaError);
    expect(requests).toEqual([]);
  });

  it.each([
    ['a playlist of local segments', 'local.m3u8', () => playlist('clip.ts'), 'hls'],
    ['a concat list reaching for other files', 'list.txt', () => 'ffconcat version 1.0\nfile /etc/passwd\n', 'concat'],
  ])('%s is refused: its probed format is not on the allow-list', async (_, name, content, format) => {
    await makeClip(tools, { file: join(dir.path, 'clip.ts'), rate: 30, seconds: 1, width: 160, height: 90 });
    const file = join(dir.path, name);
    await writeFile(file, content());
    const error = await refusal(probeMedia(file));
    expect(error).toBeInstanceOf(InvalidMediaError);
    expect((error as Error).message).toContain(`its format is ${format}`);
  });

  it('a file larger, longer or wider than the limits is refused before ffmpeg runs', async () => {
    const tooLarge = await refusal(probeMedia(clip, { ...DEFAULT_LIMITS, maxBytes: 1024 }));
    expect(tooLarge).toBeInstanceOf(InvalidMediaError);
    expect((tooLarge as Error).message).toMatch(/larger than the 0.000977 MB allowed/);
    const tooLong = await refusal(probeMedia(clip, { ...DEFAULT_LIMITS, maxDurationSeconds: 2 }));
    expect(tooLong).toBeInstanceOf(InvalidMediaError);
    expect((tooLong as Error).message).toMatch(/runs 0:04, longer than the 0:02 allowed/);
    const wide = join(dir.path, 'wide.mp4');
    await makeClip(tools, { file: wide, rate: 30, seconds: 0.2, width: 4112, height: 16, audio: false });
    const tooWide = await refusal(probeMedia(wide));
    expect(tooWide).toBeInstanceOf(InvalidMediaError);
    expect((tooWide as Error).message).toMatch(/4112x16, larger than 4096 pixels a side/);
  });
});

describe('the ffmpeg run', () => {
  it('reads the upload with the probed demuxer, local files only, at low priority and with its own TMPDIR', async () => {
    // A stand-in ffmpeg that notes how it was started, then runs the real one.
    const notes = join(dir.path, 'ffmpeg-notes.txt');
    const wrapper = join(dir.path, 'noting-ffmpeg.sh');
    await writeFile(wrapper, `#!/bin/sh\n{ echo "nice=$(nice)"; echo "tmp=$TMPDIR"; echo "args=$*"; } > "${notes}"\nexec "${ffmpegPath()}" "$@"\n`, { mode: 0o755 });
    process.env.FFMPEG_PATH = wrapper;
    await transcodeToHls({ input: clip, outputDir: join(dir.path, 'noted', 'hls'), preset: 'ultrafast' });
    const noted = await readFile(notes, 'utf8');
    expect(noted).toMatch(new RegExp(`^nice=${Math.min(19, getPriority() + 10)}$`, 'm'));
    expect(noted).toMatch(new RegExp(`^tmp=${join(dir.path, 'noted')}/\\.hls\\.tmp-[\\w-]+-ffmpeg$`, 'm'));
    expect(noted).toContain(`-f mov -protocol_whitelist file -format_whitelist mov,matroska,avi,mpegts,flv -max_pixels 16777216 -i ${clip}`);
    expect(await readdir(join(dir.path, 'noted'))).toEqual(['hls']);
  });

  it('ffmpeg and ffprobe get PATH, the locale and their TMPDIR: none of the secrets of the process', async () => {
    // Made up for this run: the test looks for each value in what the children were given.
    const made = () => randomBytes(16).toString('hex');
    const secrets = {
      DATABASE_URL: `postgres://cliffhanger:${made()}@db/cliffhanger`,
      STRIPE_SECRET_KEY: made(),
      ADMIN_TOKEN: made(),
      INTERNAL_TOKEN: made(),
      MEDIA_SECRET: made(),
    };
    for (const [name, value] of Object.entries({ ...secrets, LANG: 'C.UTF-8' })) vi.stubEnv(name, value);
    // Stand-ins that note the environment they were started with, then run the real binaries.
    const noting = async (tool: string, real: string) => {
      const wrapper = join(dir.path, `env-noting-${tool}.sh`);
      await writeFile(wrapper, `#!/bin/sh\n/usr/bin/env > "${join(dir.path, `${tool}-env.txt`)}"\nexec "${real}" "$@"\n`, { mode: 0o755 });
      return wrapper;
    };
    process.env.FFMPEG_PATH = await noting('ffmpeg', ffmpegPath());
    process.env.FFPROBE_PATH = await noting('ffprobe', ffprobePath());
    await transcodeToHls({ input: clip, outputDir: join(dir.path, 'env', 'hls'), preset: 'ultrafast' });

    // What sh itself sets (PWD, SHLVL, `_`) aside.
    const environmentOf = async (tool: string) =>
      Object.fromEntries((await readFile(join(dir.path, `${tool}-env.txt`), 'utf8')).split('\n').filter(Boolean).map((line) => line.split(/=(.*)/s, 2)).filter(([name]) => !['PWD', 'OLDPWD', 'SHLVL', '_'].includes(name!)));
    const ffmpeg = await environmentOf('ffmpeg');
    expect(Object.keys(ffmpeg).sort()).toEqual(['LANG', 'PATH', 'TMPDIR', ...(process.env.LC_ALL ? ['LC_ALL'] : [])].sort());
    expect(ffmpeg).toMatchObject({ PATH: process.env.PATH, LANG: 'C.UTF-8', TMPDIR: expect.stringMatching(/\.hls\.tmp-[\w-]+-ffmpeg$/) });
    const ffprobe = await environmentOf('ffprobe');
    expect(Object.keys(ffprobe).every((name) => ['PATH', 'LANG', 'LC_ALL', 'TMPDIR'].includes(name))).toBe(true);
    const everything = JSON.stringify([ffmpeg, ffprobe]);
    for (const [name, value] of Object.entries(secrets)) {
      expect(everything).not.toContain(name);
      expect(everything).not.toContain(value);
    }
  });

  it('the time limit kills a runaway ffmpeg, fails the upload for good and leaves nothing behind', async () => {
    const outputDir = join(dir.path, 'runaway', 'hls');
    const started = Date.now();
    const error = await refusal(transcodeToHls({ input: clip, outputDir, limits: { ...DEFAULT_LIMITS, maxRunSeconds: 0.2 } }));
    expect(error).toBeInstanceOf(InvalidMediaError);
    expect((error as Error).message).toMatch(/ran past its time limit/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(ffmpegProcessesReading(clip)).toEqual([]);
    expect(await readdir(join(dir.path, 'runaway'))).toEqual([]);
  });

  it('the CPU-time limit stops an ffmpeg that burns more than its share', async () => {
    const error = await refusal(
      runFfmpeg(
        {
          inputs: [{ source: 'testsrc2=size=1280x720:rate=30:duration=600', options: ['-f', 'lavfi'] }],
          filterComplex: '[0:v]null[v]',
          outputs: [{ target: '-', options: ['-map', '[v]', '-c:v', 'libx264', '-preset', 'medium', '-f', 'null'] }],
        },
        { cpuSeconds: 1, timeoutMs: 60_000 },
      ),
    );
    expect(error).toBeInstanceOf(FfmpegError);
    expect((error as FfmpegError).failure).toBe('cpu-limit');
  });
});

function ffmpegProcessesReading(file: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', '--', `-i ${file}`], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch (error) {
    if ((error as { status?: number }).status === 1) return []; // pgrep's answer for "none"
    throw error;
  }
}
