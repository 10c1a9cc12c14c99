// The ladder as hls.js plays it in Chromium (Debian's /usr/bin/chromium), from a plain static server:
// the player the storefront runs, not our reading of the playlists.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip } from '@cliffhanger/platform/testing';
import { ffmpegPath, transcodeToHls, type TranscodeResult } from '../src/index.ts';
import { scratchDir, tools } from './media.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const run = promisify(execFile);
const CHROMIUM = '/usr/bin/chromium';
// Like the Kafka contract without kcat: skipped with a message where Debian's Chromium is missing, never in CI.
const noBrowser = !existsSync(CHROMIUM) && process.env.CI !== 'true';
if (noBrowser) console.warn(`hls-playback: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)`);
const HLS_JS = fileURLToPath(import.meta.resolve('hls.js/dist/hls.min.js'));
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required',
];

const PAGE = `<!doctype html><meta charset="utf-8"><video muted playsinline></video><script src="/hls.js"></script>
<script>
  // What the test reads back: hls.js's own view of the ladder while it plays.
  window.playback = { errors: [], bufferTracks: [], audioFragments: 0, levelsSwitched: [] };
  window.play = (url) => {
    const video = document.querySelector('video');
    const hls = new Hls();
    window.hls = hls;
    hls.on(Hls.Events.ERROR, (_, data) => playback.errors.push(data.details + (data.fatal ? ' (fatal)' : '')));
    hls.on(Hls.Events.BUFFER_CREATED, (_, data) => { playback.bufferTracks = Object.keys(data.tracks).sort(); });
    hls.on(Hls.Events.FRAG_BUFFERED, (_, data) => { if (data.frag.type === 'audio') playback.audioFragments++; });
    hls.on(Hls.Events.LEVEL_SWITCHED, (_, data) => playback.levelsSwitched.push(data.level));
    hls.loadSource(url);
    hls.attachMedia(video);
    video.play();
  };
</script>`;

const TYPES: Record<string, string> = { '.m3u8': 'application/vnd.apple.mpegurl', '.ts': 'video/mp2t', '.js': 'text/javascript' };

/** A plain static server: the page, hls.js, and files under `root`. */
async function serveStatic(root: string): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    const file = path === '/hls.js' ? HLS_JS : join(root, normalize(decodeURIComponent(path)).replace(/^(\.\.[/\\])+/, ''));
    const found = await stat(file).catch(() => null);
    if (!found?.isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': found.size });
    createReadStream(file).pipe(res);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface Playback {
  errors: string[];
  bufferTracks: string[];
  audioFragments: number;
  levelsSwitched: number[];
}

let dir: Awaited<ReturnType<typeof scratchDir>>;
let served: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
let result: TranscodeResult;

beforeAll(async () => {
  if (noBrowser) return;
  dir = await scratchDir();
  const source = join(dir.path, 'episode.mp4');
  await makeClip(tools, { file: source, rate: 30, seconds: 7, width: 360, height: 640 });
  result = await transcodeToHls({ input: source, outputDir: join(dir.path, 'new'), preset: 'ultrafast' });
  served = await serveStatic(dir.path);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  served?.server.close();
  await dir?.remove();
});

/** Opens the page, plays `url` until `seconds` in, and answers what hls.js saw. */
async function playFor(url: string, seconds: number): Promise<{ page: Page; playback: Playback }> {
  const page = await browser.newPage();
  await page.goto(served.origin);
  await page.evaluate((source) => (window as unknown as { play: (url: string) => void }).play(source), url);
  await page.waitForFunction((past) => (document.querySelector('video')?.currentTime ?? 0) > past, seconds, { timeout: 30_000 });
  const playback = await page.evaluate(() => (window as unknown as { playback: Playback }).playback);
  return { page, playback };
}

describe.skipIf(noBrowser)('a new ladder in hls.js', () => {
  it('plays with every rung as a level and the shared sound as its one audio track, decoded', async () => {
    const { page, playback } = await playFor('/new/master.m3u8', 1.5);
    expect(playback.errors).toEqual([]);
    expect(playback.bufferTracks).toEqual(['audio', 'video']);
    expect(playback.audioFragments).toBeGreaterThanOrEqual(1);
    const seen = await page.evaluate(() => {
      const { hls } = window as unknown as { hls: { levels: { height: number; audioGroups?: string[] }[]; audioTracks: { groupId: string }[] } };
      const video = document.querySelector('video') as HTMLVideoElement & { webkitAudioDecodedByteCount?: number };
      return {
        heights: hls.levels.map((level) => level.height),
        audioTracks: hls.audioTracks.map((track) => track.groupId),
        soundBytes: video.webkitAudioDecodedByteCount ?? 0,
      };
    });
    expect(seen.heights.sort((a, b) => a - b)).toEqual(result.renditions.map((r) => r.height).sort((a, b) => a - b));
    expect(seen.audioTracks).toEqual(['aud']);
    expect(seen.soundBytes).toBeGreaterThan(0);
    await page.close();
  });

  it('switches rungs mid-play without an error, the sound going on', async () => {
    const { page } = await playFor('/new/master.m3u8', 0.5);
    const target = await page.evaluate(() => {
      const { hls } = window as unknown as { hls: { levels: unknown[]; currentLevel: number } };
      hls.currentLevel = hls.currentLevel === 0 ? hls.levels.length - 1 : 0;
      return hls.currentLevel;
    });
    await page.waitForFunction((level) => (window as unknown as { playback: Playback }).playback.levelsSwitched.includes(level), target, { timeout: 30_000 });
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 3, undefined, { timeout: 30_000 });
    const playback = await page.evaluate(() => (window as unknown as { playback: Playback }).playback);
    expect(playback.errors).toEqual([]);
    expect(playback.audioFragments).toBeGreaterThanOrEqual(2);
    await page.close();
  });
});

describe.skipIf(noBrowser)('a ladder transcoded before the sound was shared', () => {
  it('still plays: variants that carry their own sound and no audio group', async () => {
    // What ladders looked like until now: one rung with its sound muxed in, a master without EXT-X-MEDIA.
    const old = join(dir.path, 'old');
    await mkdir(join(old, '360p'), { recursive: true });
    await run(ffmpegPath(), [
      '-v', 'error', '-y', '-i', join(dir.path, 'episode.mp4'), '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac',
      '-f', 'hls', '-hls_time', '4', '-hls_playlist_type', 'vod', '-hls_segment_filename', join(old, '360p', 'seg_%03d.ts'), join(old, '360p', 'index.m3u8'),
    ]);
    await writeFile(join(old, 'master.m3u8'), [
      '#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS',
      '#EXT-X-STREAM-INF:BANDWIDTH=900000,AVERAGE-BANDWIDTH=800000,RESOLUTION=360x640,FRAME-RATE=30.000,CODECS="avc1.4D401E,mp4a.40.2"',
      '360p/index.m3u8', '',
    ].join('\n'));
    const { page, playback } = await playFor('/old/master.m3u8', 1);
    expect(playback.errors).toEqual([]);
    expect(await page.evaluate(() => (document.querySelector('video') as HTMLVideoElement & { webkitAudioDecodedByteCount?: number }).webkitAudioDecodedByteCount ?? 0)).toBeGreaterThan(0);
    await page.close();
  });
});
