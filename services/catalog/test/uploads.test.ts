import { once } from 'node:events';
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip } from '@cliffhanger/platform/testing';
import { ffmpegTools } from '@cliffhanger/transcoder';
import { adminOf, notAVideo, startCatalogSite, type Site } from './site.ts';

let site: Site;
/** Where the disk adapter (the tests' storage) keeps a key. */
const onDisk = (key: string) => path.join(site.platform.config.dataDir, 'media', key);
let clip: Buffer;

beforeAll(async () => {
  [site, clip] = await Promise.all([startCatalogSite(), makeClip(ffmpegTools())]);
}, 60_000);

afterAll(() => site?.close());

describe('uploads through the admin API', () => {
  it('refuses every admin call without the right admin token', async () => {
    // No token and no session is nobody (401); a wrong token is refused (403).
    for (const [headers, code] of [[{}, 401], [{ authorization: 'Bearer wrong-token-wrong-token' }, 403], [{ authorization: 'Basic abc' }, 401]] as const) {
      const answer = await site.call('POST', '/api/admin/videos', { body: { title: 'Sneaky' }, headers });
      expect(answer.code).toBe(code);
    }
    expect((await site.call('GET', '/api/homepage/query?keyword=sneaky')).data.items).toEqual([]);
  });

  it('creates a series once per title and answers the existing one after', async () => {
    const first = await site.admin('POST', '/api/admin/videos', { body: { title: 'Twice Told', tags: ['Romance'], freeEpisodes: 2, priceCoins: 60 } });
    expect(first.data).toMatchObject({ created: true, video: { title: 'Twice Told', tags: ['Romance'], freeEpisodes: 2, priceCoins: 60, episodeCount: 0 } });
    const again = await site.admin('POST', '/api/admin/videos', { body: { title: 'twice told' } });
    expect(again.data).toMatchObject({ created: false, video: { id: first.data.video.id } });
    expect((await site.admin('POST', '/api/admin/videos', { body: { title: '' } })).code).toBe(422);
  });

  it('turns an uploaded file into a ready episode, reporting status along the way', async () => {
    const video = await site.series({ title: 'Upload Lane' });
    const upload = await site.upload(video, clip, '?title=The%20Wedding');
    expect(upload.data).toMatchObject({ id: `${video}-ep1`, videoId: video, number: 1, title: 'The Wedding' });
    expect(['pending', 'processing', 'ready']).toContain(upload.data.status);
    const settled = await site.settled(upload.data.id);
    expect(settled).toMatchObject({ status: 'ready', progress: 100, durationSeconds: 2, error: null });
    const series = await site.admin('GET', `/api/admin/videos/${video}`);
    // With no cover uploaded, the first finished episode's poster stands in.
    expect(series.data.cover).toMatch(/^\/media\/public\/covers\//);
    expect(series.data.episodes).toHaveLength(1);
  });

  it('shows every planned episode of a series before its file arrives, and fills one in on upload', async () => {
    const video = await site.series({ title: 'Coming Soon', freeEpisodes: 1, priceCoins: 25 });
    await adminOf(site).planEpisodes(video, 3);
    const planned = await site.call('GET', `/api/video?id=${video}`);
    expect(planned.data.episodes).toMatchObject([
      { number: 1, ready: false, locked: false },
      { number: 2, ready: false, locked: true },
      { number: 3, ready: false, locked: true },
    ]);
    expect((await site.call('GET', `/api/video/episode?id=${video}-ep2`)).code).toBe(402);
    expect((await site.call('GET', `/api/video/episode?id=${video}-ep1`)).code).toBe(409);

    const upload = await site.upload(video, clip, '?number=1');
    expect(upload.data).toMatchObject({ id: `${video}-ep1`, number: 1 });
    expect(await site.settled(upload.data.id)).toMatchObject({ status: 'ready' });
    const series = await site.admin('GET', `/api/admin/videos/${video}`);
    expect(series.data.episodeCount).toBe(3);
    expect(series.data.episodes.map((episode: { status: string }) => episode.status)).toEqual(['ready', 'planned', 'planned']);
    expect((await site.upload(video, clip, '?number=1')).code).toBe(409);
  });

  it('fails a corrupt upload clearly without wedging the queue', async () => {
    const video = await site.series({ title: 'Broken Reel' });
    const corrupt = await site.upload(video, notAVideo);
    const good = await site.upload(video, clip);
    const failed = await site.settled(corrupt.data.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/not a video file/);
    expect((await site.settled(good.data.id)).status).toBe('ready');
    const page = await site.call('GET', `/api/video?id=${video}`);
    expect(page.data.episodes.map((e: { ready: boolean }) => e.ready)).toEqual([false, true]);
    expect((await site.call('GET', `/api/video/episode?id=${corrupt.data.id}`)).code).toBe(409);
  });

  it('refuses an episode number that is taken, a JSON body, an empty file and an unknown series', async () => {
    const video = await site.series({ title: 'Numbered' });
    expect((await site.upload(video, notAVideo, '?number=3')).data.number).toBe(3);
    expect((await site.upload(video, notAVideo, '?number=3')).code).toBe(409);
    expect((await site.admin('POST', `/api/admin/videos/${video}/episodes`, { body: { file: 'x' } })).code).toBe(422);
    expect((await site.upload(video, Buffer.alloc(0))).code).toBe(422);
    expect((await site.upload('no-such-series', notAVideo)).code).toBe(404);
    expect((await site.admin('GET', '/api/admin/episodes/nope')).code).toBe(404);
  });

  it('arranges homepage sections from existing series only', async () => {
    const video = await site.series({ title: 'Sectioned' });
    await site.upload(video, notAVideo);
    expect((await site.admin('PUT', '/api/admin/sections/asian-stories', { body: { title: 'Asian Stories', position: 1, videoIds: [video] } })).code).toBe(200);
    expect((await site.admin('PUT', '/api/admin/sections/asian-stories', { body: { title: 'Asian Stories', position: 1, videoIds: ['ghost'] } })).code).toBe(404);
    const section = await site.call('GET', '/api/homepage/query?sectionId=asian-stories');
    expect(section.data.items.map((card: { id: string }) => card.id)).toEqual([video]);
  });
});

describe('transcodes that fail', () => {
  it('an uploaded playlist referencing an http URL is refused as invalid media, fetches nothing and is stored under a neutral name', async () => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end();
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const video = await site.series({ title: 'Remote Reel' });
      const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\nhttp://127.0.0.1:${port}/x.ts\n#EXT-X-ENDLIST\n`;
      const upload = await site.upload(video, Buffer.from(playlist), '?fileName=episode.m3u8');
      expect(await site.settled(upload.data.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/not a video file we accept: its format is hls/) });
      expect(requests).toEqual([]);
      expect(fs.readdirSync(onDisk(`uploads/${upload.data.id}`))).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    } finally {
      server.close();
    }
  });

  it('a transcode that crashes three times ends failed, and an operator queues it again until it is ready', async () => {
    // An ffmpeg killed every time, as the out-of-memory killer would kill one on a hostile file.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crashing-ffmpeg-'));
    const wrapper = path.join(dir, 'ffmpeg');
    fs.writeFileSync(wrapper, '#!/bin/sh\nkill -9 $$\n', { mode: 0o755 });
    const video = await site.series({ title: 'Crash Course' });
    await adminOf(site).planEpisodes(video, 2);
    let id: string;
    process.env.FFMPEG_PATH = wrapper;
    try {
      const upload = await site.upload(video, clip, '?number=1');
      id = upload.data.id;
      const failed = await site.settled(id, 90_000);
      expect(failed).toMatchObject({ status: 'failed', error: expect.stringMatching(/^transcoding failed after 3 attempts: .*killed by SIGKILL/) });
    } finally {
      delete process.env.FFMPEG_PATH;
      fs.rmSync(dir, { recursive: true, force: true });
    }

    expect((await site.call('POST', `/api/admin/episodes/${id}/retranscode`)).code).toBe(401);
    const again = await site.admin('POST', `/api/admin/episodes/${id}/retranscode`);
    expect(again.code).toBe(200);
    expect(again.data).toMatchObject({ id, status: expect.stringMatching(/^(pending|processing)$/), error: null });
    expect(await site.settled(id)).toMatchObject({ status: 'ready', progress: 100, durationSeconds: 2, error: null });
    expect((await site.call('GET', `/api/video?id=${video}`)).data.episodes.map((e: { ready: boolean }) => e.ready)).toEqual([true, false]);

    expect((await site.admin('POST', `/api/admin/episodes/${id}/retranscode`)).code).toBe(409);
    expect((await site.admin('POST', `/api/admin/episodes/${video}-ep2/retranscode`)).code).toBe(409);
    expect((await site.admin('POST', '/api/admin/episodes/no-such-episode/retranscode')).code).toBe(404);
  }, 180_000);
});

describe('the admin API without ADMIN_TOKEN', () => {
  it('refuses the token and says how to turn it on', async () => {
    const bare = await startCatalogSite({}, { adminApi: false });
    try {
      const answer = await bare.admin('POST', '/api/admin/videos', { body: { title: 'Nope' } });
      expect(answer.code).toBe(403);
      expect(answer.message).toMatch(/ADMIN_TOKEN/);
    } finally {
      await bare.close();
    }
  }, 60_000);
});
