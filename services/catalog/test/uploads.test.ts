import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip, notAVideo, startSite, type Site } from './harness.ts';

let site: Site;
let clip: Buffer;

beforeAll(async () => {
  [site, clip] = await Promise.all([startSite(), makeClip()]);
}, 60_000);

afterAll(() => site?.close());

describe('uploads through the admin API', () => {
  it('refuses every admin call without the right admin token', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: 'Basic abc' }]) {
      const answer = await site.call('POST', '/api/admin/videos', { body: { title: 'Sneaky' }, headers });
      expect(answer.code).toBe(403);
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
    await site.catalog.admin.planEpisodes(video, 3);
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

describe('the admin API without ADMIN_TOKEN', () => {
  it('is off and says how to turn it on', async () => {
    const bare = await startSite({}, { adminApi: false });
    try {
      const answer = await bare.admin('POST', '/api/admin/videos', { body: { title: 'Nope' } });
      expect(answer.code).toBe(403);
      expect(answer.message).toMatch(/ADMIN_TOKEN/);
    } finally {
      await bare.close();
    }
  }, 60_000);
});
