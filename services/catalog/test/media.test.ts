import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverSecret } from '@cliffhanger/platform';
import { makeClip, tempDir } from '@cliffhanger/platform/testing';
import { ffmpegTools, ffprobeEnv, ffprobePath } from '@cliffhanger/transcoder';
import { issuePlaybackGrant } from '../src/index.ts';
import { startCatalogSite, type Site } from './site.ts';

const run = promisify(execFile);

let site: Site;
let free: string;
let locked: string;
let playback: string;

const get = (url: string, headers: Record<string, string> = {}) => fetch(site.url + url, { headers });
const ladderUrl = (grant: string, episodeId: string, file: string) => `/media/g/${grant}/episodes/${episodeId}/hls/${file}`;

beforeAll(async () => {
  site = await startCatalogSite();
  const video = await site.series({ title: 'Grant Street', tags: ['Revenge'], freeEpisodes: 1, priceCoins: 30 });
  const clip = await makeClip(ffmpegTools(), { seconds: 3 });
  for (const bytes of [clip, clip]) await site.upload(video, bytes);
  [free, locked] = [`${video}-ep1`, `${video}-ep2`];
  expect((await site.settled(free)).status).toBe('ready');
  expect((await site.settled(locked)).status).toBe('ready');
  playback = (await site.call('GET', `/api/video/episode?id=${free}`)).data.playback.url;
}, 180_000);

afterAll(() => site?.close());

describe('protected media', () => {
  it('serves a free episode whose master playlist, variant playlist and segments download and decode', async () => {
    const master = await get(playback);
    expect(master.status).toBe(200);
    expect(master.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(master.headers.get('cache-control')).toBe('private, max-age=60');
    const masterText = await master.text();
    expect(masterText).toMatch(/#EXT-X-STREAM-INF:.*BANDWIDTH=\d+.*RESOLUTION=\d+x\d+.*CODECS="avc1\.[0-9A-F]+,mp4a\.40\.2"/);
    const variants = masterText.split('\n').filter((line) => line.endsWith('.m3u8'));
    expect(variants.length).toBeGreaterThanOrEqual(2);

    // Relative URLs resolve under the grant, as a player resolves them.
    const variantUrl = new URL(variants[0]!, site.url + playback);
    const variantText = await (await fetch(variantUrl)).text();
    const segments = variantText.split('\n').filter((line) => line.endsWith('.ts'));
    expect(segments.length).toBeGreaterThan(0);
    const segment = await fetch(new URL(segments[0]!, variantUrl));
    expect(segment.status).toBe(200);
    expect(segment.headers.get('content-type')).toBe('video/mp2t');
    expect(segment.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');

    // The rung's segments carry the pictures; the sound is one rendition the rungs share.
    expect(await codecsOf(segment)).toEqual(['h264']);
    const audio = /#EXT-X-MEDIA:TYPE=AUDIO,.*URI="([^"]+)"/.exec(masterText)?.[1];
    expect(audio).toBeDefined();
    const audioUrl = new URL(audio!, site.url + playback);
    const audioSegments = (await (await fetch(audioUrl)).text()).split('\n').filter((line) => line.endsWith('.ts'));
    const audioSegment = await fetch(new URL(audioSegments[0]!, audioUrl));
    expect(audioSegment.status).toBe(200);
    expect(await codecsOf(audioSegment)).toEqual(['aac']);
  });

  /** The codecs of a downloaded segment's streams, as ffprobe reads them. */
  async function codecsOf(segment: Response): Promise<string[]> {
    const file = path.join(tempDir('segment-'), 'segment.ts');
    fs.writeFileSync(file, Buffer.from(await segment.arrayBuffer()));
    const { stdout } = await run(ffprobePath(), ['-v', 'error', '-show_streams', '-of', 'json', file], { env: ffprobeEnv() });
    return (JSON.parse(stdout).streams as { codec_name: string }[]).map((stream) => stream.codec_name).sort();
  }

  it('answers byte ranges of a segment', async () => {
    const whole = await get(playback.replace('master.m3u8', 'poster.jpg'));
    expect(whole.headers.get('content-type')).toBe('image/jpeg');
    const size = Number(whole.headers.get('content-length'));
    const bytes = Buffer.from(await whole.arrayBuffer());

    const first = await get(playback.replace('master.m3u8', 'poster.jpg'), { range: 'bytes=0-9' });
    expect(first.status).toBe(206);
    expect(first.headers.get('accept-ranges')).toBe('bytes');
    expect(first.headers.get('content-range')).toBe(`bytes 0-9/${size}`);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(bytes.subarray(0, 10));

    const tail = await get(playback.replace('master.m3u8', 'poster.jpg'), { range: 'bytes=-5' });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(size - 5));
    const beyond = await get(playback.replace('master.m3u8', 'poster.jpg'), { range: `bytes=${size}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${size}`);
  });

  it('answers 402 for a locked episode and no playback URL', async () => {
    const answer = await site.call('GET', `/api/video/episode?id=${locked}`);
    expect(answer.code).toBe(402);
    expect(answer.data).toEqual({ episodeId: locked, videoId: locked.replace(/-ep2$/, ''), priceCoins: 30, balance: 0 });
  });

  it("refuses a locked episode's media without a grant, with another episode's grant, an expired grant or a tampered one", async () => {
    const secret = serverSecret(site.platform.config, 'MEDIA_SECRET');
    const freeGrant = playback.split('/')[3]!;
    const expired = issuePlaybackGrant(secret, locked, Date.now() - 5 * 3600_000).token;
    const forged = issuePlaybackGrant('not-the-server-secret-not-the-server-secret', locked).token;
    const [payload, signature] = issuePlaybackGrant(secret, locked).token.split('.');
    const tampered = `${Buffer.from(`${locked}:9999999999`).toString('base64url')}.${signature}`;
    const flipped = `${payload}.${signature!.slice(0, -1)}${signature!.endsWith('A') ? 'B' : 'A'}`;
    for (const url of [
      `/media/episodes/${locked}/hls/master.m3u8`,
      ladderUrl(freeGrant, locked, 'master.m3u8'),
      ladderUrl(freeGrant, locked, '160p/seg_000.ts'),
      ladderUrl(expired, locked, 'master.m3u8'),
      ladderUrl(forged, locked, 'master.m3u8'),
      ladderUrl(tampered, locked, 'master.m3u8'),
      ladderUrl(flipped, locked, 'master.m3u8'),
      ladderUrl('garbage', locked, 'master.m3u8'),
    ]) {
      const answer = await get(url);
      expect([403, 404], url).toContain(answer.status);
      if (url.includes('/g/')) expect(answer.status, url).toBe(403);
    }
    expect((await get(ladderUrl(issuePlaybackGrant(secret, locked).token, locked, 'master.m3u8'))).status).toBe(200);
  });

  it("never serves a path outside the episode's own folder", async () => {
    const grant = playback.split('/')[3]!;
    for (const url of [
      ladderUrl(grant, free, '../../../secrets/media_secret'),
      `/media/g/${grant}/episodes/${free}/%2e%2e/%2e%2e/uploads`,
      `/media/g/${grant}/uploads/${free}/x.mp4`,
      '/media/public/../secrets/media_secret',
    ]) {
      expect([403, 404], url).toContain((await get(url)).status);
    }
  });

  it('marks every media answer nosniff and same-origin, served or refused', async () => {
    for (const url of [playback, ladderUrl('garbage', locked, 'master.m3u8'), '/media/public/covers/nothing.jpg', '/media/elsewhere']) {
      const answer = await get(url);
      expect(answer.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect(answer.headers.get('cross-origin-resource-policy'), url).toBe('same-origin');
    }
  });

  it('serves covers publicly with a day of caching', async () => {
    const cover = (await site.call('GET', `/api/video?id=${free.replace(/-ep1$/, '')}`)).data.cover as string;
    expect(cover).toMatch(/^\/media\/public\/covers\//);
    const answer = await get(cover);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/jpeg');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=86400');
  });
});
