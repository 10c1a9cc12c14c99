// What a holder of a playback grant gets, and what anyone else does not: one suite, run on Node's
// /media (media-grants.test.ts) and on the nginx edge (edge.test.ts), so that a forged, expired or
// other-episode grant is refused by both alike (issue 28).
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiskStorage } from '@cliffhanger/platform';
import { issuePlaybackGrant } from '../src/grants.ts';
import { mediaRoutes } from '../src/media-routes.ts';

export const SECRET = 'a media secret of the contract suite, 32+ characters';
export const EPISODE = 'grant-street-ep2';
export const OTHER_EPISODE = 'grant-street-ep3';
const SEGMENT = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7) % 256));
const VARIANT = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.000,\nseg0.ts\n#EXT-X-ENDLIST\n';
const MASTER = '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1400000,RESOLUTION=480x854\n480p/index.m3u8\n';
const SUBTITLE = 'WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n';

/** A ladder as the transcoder lays it out under DATA_DIR/media, hand-made: one rung, one segment, one subtitle. */
export function writeLadder(mediaRoot: string): void {
  for (const episode of [EPISODE, OTHER_EPISODE]) {
    const hls = path.join(mediaRoot, 'episodes', episode, 'hls');
    fs.mkdirSync(path.join(hls, '480p'), { recursive: true });
    fs.writeFileSync(path.join(hls, 'master.m3u8'), MASTER);
    fs.writeFileSync(path.join(hls, '480p', 'index.m3u8'), VARIANT);
    fs.writeFileSync(path.join(hls, '480p', 'seg0.ts'), SEGMENT);
    fs.mkdirSync(path.join(mediaRoot, 'episodes', episode, 'subtitles'), { recursive: true });
    fs.writeFileSync(path.join(mediaRoot, 'episodes', episode, 'subtitles', 'en.vtt'), SUBTITLE);
  }
}

export interface MediaServer {
  url: string;
  close(): Promise<void>;
}

/** Node's media routes alone on a loopback port, over `mediaRoot`. */
export async function startNodeMedia(mediaRoot: string): Promise<MediaServer> {
  const app = express().use(mediaRoutes(createDiskStorage(mediaRoot), SECRET));
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The suite, on the server `start` gives: it serves writeLadder's files under SECRET. */
export function mediaGrantContract(name: string, start: () => Promise<MediaServer>): void {
  describe(`playback grants on ${name}`, () => {
    let server: MediaServer;
    beforeAll(async () => {
      server = await start();
    });
    afterAll(() => server?.close());

    const grant = (episode = EPISODE, now = Date.now(), secret = SECRET) => issuePlaybackGrant(secret, episode, now).token;
    const media = (token: string, file: string, init: RequestInit = {}, episode = EPISODE) =>
      fetch(`${server.url}/media/g/${token}/episodes/${episode}/${file}`, init);
    const refused = async (answer: Response) => {
      expect(answer.status).toBe(403);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await answer.json()).toMatchObject({ code: 403, data: null });
    };

    it('serves a segment to the holder of a grant, byte for byte, kept by the browser only', async () => {
      const answer = await media(grant(), 'hls/480p/seg0.ts');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('video/mp2t');
      expect(answer.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await answer.arrayBuffer()).equals(SEGMENT)).toBe(true);
    });

    it('answers a player’s byte range of a segment', async () => {
      const answer = await media(grant(), 'hls/480p/seg0.ts', { headers: { range: 'bytes=100-199' } });
      expect(answer.status).toBe(206);
      expect(answer.headers.get('content-range')).toBe(`bytes 100-199/${SEGMENT.length}`);
      expect(Buffer.from(await answer.arrayBuffer()).equals(SEGMENT.subarray(100, 200))).toBe(true);
    });

    it('serves the master and the variant playlists, re-read within a minute', async () => {
      for (const [file, body] of [['hls/master.m3u8', MASTER], ['hls/480p/index.m3u8', VARIANT]] as const) {
        const answer = await media(grant(), file);
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
        expect(answer.headers.get('cache-control')).toBe('private, max-age=60');
        expect(await answer.text()).toBe(body);
      }
    });

    it('serves a subtitle track as WebVTT', async () => {
      const answer = await media(grant(), 'subtitles/en.vtt');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
      expect(await answer.text()).toBe(SUBTITLE);
    });

    it('refuses a grant whose signature was altered', async () => {
      const [payload, signature] = grant().split('.');
      const flipped = `${signature!.slice(0, -1)}${signature!.endsWith('A') ? 'B' : 'A'}`;
      await refused(await media(`${payload}.${flipped}`, 'hls/480p/seg0.ts'));
    });

    it('refuses a grant signed with another secret', async () => {
      await refused(await media(grant(EPISODE, Date.now(), 'not our secret, though just as long as ours'), 'hls/480p/seg0.ts'));
    });

    it('refuses a grant whose expiry was pushed forward under the old signature', async () => {
      const [, signature] = grant(EPISODE, Date.now() - 5 * 3600_000).split('.');
      const later = Buffer.from(`${EPISODE}:${Math.floor(Date.now() / 1000) + 3600}`).toString('base64url');
      await refused(await media(`${later}.${signature}`, 'hls/480p/seg0.ts'));
    });

    it('refuses an expired grant', async () => {
      await refused(await media(grant(EPISODE, Date.now() - 5 * 3600_000), 'hls/480p/seg0.ts'));
      await refused(await media(grant(EPISODE, Date.now() - 5 * 3600_000), 'hls/480p/index.m3u8'));
    });

    it('refuses another episode’s grant, for segments, playlists and subtitles alike', async () => {
      const other = grant(OTHER_EPISODE);
      for (const file of ['hls/480p/seg0.ts', 'hls/480p/index.m3u8', 'hls/master.m3u8', 'subtitles/en.vtt']) await refused(await media(other, file));
      expect((await media(other, 'hls/480p/seg0.ts', {}, OTHER_EPISODE)).status).toBe(200);
    });

    it('refuses what is not a grant at all', async () => {
      for (const token of ['nothing', 'a.b.c', 'a.', `${grant()}.extra`]) await refused(await media(token, 'hls/480p/seg0.ts'));
    });

    it('answers a missing file of a granted episode with no such media', async () => {
      const answer = await media(grant(), 'hls/480p/seg9.ts');
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ code: 404, message: 'No such media' });
    });

    it('is read-only', async () => {
      const answer = await media(grant(), 'hls/480p/seg0.ts', { method: 'POST', body: 'x' });
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, HEAD');
    });
  });
}
