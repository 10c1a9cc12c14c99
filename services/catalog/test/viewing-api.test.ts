import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@cliffhanger/platform/testing';
import { episodeRepository as episodeRepo } from '../src/episode-repository.ts';
import { adminOf, startCatalogSite, type Site } from './site.ts';

// The feed and the rankings through the site as `npm start` composes it: the real user service
// records history and publishes its events, the catalog's consumers keep the rankings from them.
let site: Site;
const series: string[] = [];

beforeAll(async () => {
  site = await startCatalogSite();
  const admin = adminOf(site);
  for (const [title, tags] of [
    ['The Silent Heir', ['Revenge']],
    ['Moonlit Vows', ['Werewolf', 'Romance']],
    ['Glass Slipper CEO', ['CEO']],
  ] as const) {
    const id = await site.series({ title, tags, freeEpisodes: 1, priceCoins: 20 });
    await admin.planEpisodes(id, 2);
    // Episode 1 as a finished transcode leaves it (uploads.test.ts runs the real one); episode 2 is locked.
    const uploadId = randomUUID();
    const db = site.platform.database.db;
    await episodeRepo.attachUpload(db, `${id}-ep1`, { uploadId, sourceKey: `uploads/${id}-ep1/${uploadId}` });
    await episodeRepo.finishEpisode(db, `${id}-ep1`, uploadId, { status: 'ready', durationSeconds: 30, mediaPrefix: `media/${id}-ep1` });
    series.push(id);
  }
}, 180_000);

afterAll(() => site?.close());

const ids = (data: { items: { id: string }[] }) => data.items.map((card) => card.id);

describe('GET /api/video/feed', () => {
  it('answers a page of playable items, each a card and the episode with its grant', async () => {
    const answer = await site.call('GET', '/api/video/feed?page=1&size=2', { token: await site.guest() });
    expect(answer.code).toBe(200);
    expect(answer.data).toMatchObject({ page: 1, size: 2, hasMore: true });
    expect(answer.data.items).toHaveLength(2);
    for (const { video, episode } of answer.data.items) {
      expect(Object.keys(video).sort()).toEqual(['cover', 'episodeCount', 'id', 'playCount', 'tags', 'title']);
      expect(episode).toMatchObject({ videoId: video.id, number: 1, playback: { url: expect.stringMatching(/^\/media\/g\//) } });
    }
    const rest = await site.call('GET', '/api/video/feed?page=2&size=2');
    expect([rest.data.items.length, rest.data.hasMore]).toEqual([1, false]);
  });

  it.each([
    ['page=0', 'page', 'page must be a whole number from 1'],
    ['page=-3', 'page', 'page must be a whole number from 1'],
    ['page=1.5', 'page', 'page must be a whole number from 1'],
    ['page=abc', 'page', 'page must be a whole number from 1'],
    ['page=1e300', 'page', 'page must be a whole number from 1'],
    ['page=99999999999999999999999', 'page', 'page must be a whole number from 1'],
    ['page=1&page=2', 'page', 'page must be a whole number from 1'],
    ['size=0', 'size', 'size must be a whole number from 1 to 50'],
    ['size=51', 'size', 'size must be a whole number from 1 to 50'],
    ['size=1e9', 'size', 'size must be a whole number from 1 to 50'],
    ['size=10&size=20', 'size', 'size must be a whole number from 1 to 50'],
  ])('refuses %s with a field message in the envelope, never a server error', async (query, field, message) => {
    const answer = await site.call('GET', `/api/video/feed?${query}`);
    expect(answer.status).toBeLessThan(500);
    expect(answer).toMatchObject({ code: 422, message, data: { fields: { [field]: message } } });
  });

  it('answers every hostile page and size with the envelope, never a server error', async () => {
    // As they travel in the query string, as gateway/test/fuzz.test.ts sends them to the other lists.
    const hostile = ['%00', 'a%00b', '%ud800', 'x'.repeat(10_000), '-1', '1e308', String(Number.MAX_SAFE_INTEGER + 2), 'true', 'null', '%5B%5D', '%7B%22%24gt%22%3A%22%22%7D', '%27%20or%201%3D1%20--'];
    for (const path of ['/api/video/feed?', '/api/homepage/query?sectionId=top&', '/api/homepage/query?sectionId=continue&']) {
      for (const field of ['page', 'size']) {
        for (const value of hostile) {
          const answer = await site.call('GET', `${path}${field}=${value}`);
          expect(answer.status, `${path}${field}=${value}`).toBeLessThan(500);
          expect([400, 422], `${path}${field}=${value}`).toContain(answer.code);
        }
      }
    }
  });
});

describe('GET /api/homepage/query with a ranking', () => {
  it('lists the newest series first', async () => {
    const { code, data } = await site.call('GET', '/api/homepage/query?sectionId=new&size=2');
    expect(code).toBe(200);
    expect([ids(data), data.hasMore]).toEqual([[series[2], series[1]], true]);
  });

  it('keeps "continue" and "top" from the history viewers record, each viewer seeing only their own', async () => {
    const viewer = await site.guest();
    const other = await site.guest();
    for (const [token, id] of [[viewer, series[0]], [viewer, series[1]], [other, series[2]]] as const) {
      expect((await site.call('POST', '/api/user/history', { token, body: { episodeId: `${id}-ep1`, positionSeconds: 12 } })).code).toBe(200);
    }
    const continueOf = async (token?: string) => ids((await site.call('GET', '/api/homepage/query?sectionId=continue', { token: token ?? null })).data);
    await eventually(async () => (await continueOf(viewer)).length === 2 && (await continueOf(other)).length === 1, 10_000, 'the history to reach the catalog');
    expect(await continueOf(viewer)).toEqual([series[1], series[0]]);
    expect(await continueOf(other)).toEqual([series[2]]);
    expect(await continueOf()).toEqual([]);
    // Shared rankings may be a few seconds behind (cached like the homepage).
    const top = await eventually(async () => {
      const listed = ids((await site.call('GET', '/api/homepage/query?sectionId=top')).data);
      return listed.length === 3 ? listed : null;
    }, 15_000, 'the plays in "top"');
    expect(new Set(top)).toEqual(new Set(series));
    // Seen, a series goes to the end of the viewer's feed.
    const feed = await site.call('GET', '/api/video/feed', { token: viewer });
    expect(feed.data.items.map((item: { video: { id: string } }) => item.video.id).slice(1).sort()).toEqual([series[0], series[1]].sort());
  });

  it('answers a page past the end with an empty list, however deep, and a hostile page with a field message', async () => {
    for (const sectionId of ['top', 'trending', 'new', 'continue']) {
      const deepest = await site.call('GET', `/api/homepage/query?sectionId=${sectionId}&page=${Number.MAX_SAFE_INTEGER}&size=50`);
      expect(deepest).toMatchObject({ status: 200, code: 200, data: { items: [], hasMore: false } });
      const hostile = await site.call('GET', `/api/homepage/query?sectionId=${sectionId}&page=1e300`);
      expect(hostile.status).toBeLessThan(500);
      expect(hostile).toMatchObject({ code: 422, data: { fields: { page: 'page must be a whole number from 1' } } });
    }
    const deepest = await site.call('GET', `/api/video/feed?page=${Number.MAX_SAFE_INTEGER}&size=50`);
    expect(deepest).toMatchObject({ status: 200, code: 200, data: { items: [], hasMore: false } });
  });
});
