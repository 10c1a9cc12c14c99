import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, makeClip } from '@cliffhanger/platform/testing';
import { ffmpegTools } from '@cliffhanger/transcoder';
import { adminOf, notAVideo, startCatalogSite, type Site } from './site.ts';

let site: Site;
let drama: string;
const episode = (n: number) => `${drama}-ep${n}`;

beforeAll(async () => {
  site = await startCatalogSite();
  drama = await site.series({
    title: 'The Midnight Contract',
    description: 'A bride for one year, a secret for life.',
    tags: ['Romance', 'CEO'],
    freeEpisodes: 1,
    priceCoins: 45,
  });
  const clip = await makeClip(ffmpegTools());
  for (const bytes of [clip, clip, notAVideo]) expect((await site.upload(drama, bytes)).code).toBe(200);
  // Enough listed series in one category to need three pages of ten.
  for (let i = 1; i <= 24; i++) {
    const id = await site.series({ title: `Moon Pack ${String(i).padStart(2, '0')}`, tags: ['Werewolf'] });
    await site.upload(id, notAVideo);
  }
  await site.series({ title: 'An Empty Shell', tags: ['Werewolf'] });
  await site.admin('PUT', '/api/admin/sections/featured', { body: { title: 'Featured Videos', kind: 'carousel', position: 0, videoIds: [drama] } });
  await site.admin('PUT', '/api/admin/sections/asian-stories', { body: { title: 'Asian Stories', position: 1, videoIds: [drama] } });
  await site.admin('PUT', '/api/admin/sections/more-recommendations', { body: { title: 'More Recommendations', position: 2, videoIds: [drama] } });
  await Promise.all([1, 2, 3].map((n) => site.settled(episode(n))));
}, 180_000);

afterAll(() => site?.close());

describe('browsing the catalog', () => {
  it('lists the categories in display order', async () => {
    const { code, data } = await site.call('GET', '/api/tag');
    expect(code).toBe(200);
    expect(data).toEqual([
      { id: 'romance', name: 'Romance' },
      { id: 'ceo', name: 'CEO' },
      { id: 'werewolf', name: 'Werewolf' },
    ]);
  });

  it('shows the Featured Videos carousel and the sections on the homepage', async () => {
    const { data } = await site.call('GET', '/api/homepage');
    expect(data.carousel.title).toBe('Featured Videos');
    expect(data.carousel.items).toEqual([
      { id: drama, title: 'The Midnight Contract', cover: expect.stringMatching(/^\/media\/public\/covers\/.+\.jpg$/), tags: ['Romance', 'CEO'], episodeCount: 3, playCount: 0 },
    ]);
    expect(data.sections.map((s: { title: string }) => s.title)).toEqual(['Asian Stories', 'More Recommendations']);
    expect(data.sections[1].items[0].id).toBe(drama);
  });

  it('pages through a category and says when there is no more', async () => {
    const tag = async (page: number, size = 10) => (await site.call('GET', `/api/homepage/query?tagId=werewolf&page=${page}&size=${size}`)).data;
    const pages = [await tag(1), await tag(2), await tag(3)];
    expect(pages.map((p) => [p.items.length, p.hasMore])).toEqual([[10, true], [10, true], [4, false]]);
    const ids = pages.flatMap((p) => p.items.map((card: { id: string }) => card.id));
    expect(new Set(ids).size).toBe(24);
    expect(ids.some((id) => id.startsWith('an-empty-shell'))).toBe(false);
    expect(await tag(4)).toEqual({ items: [], page: 4, size: 10, hasMore: false });
    expect((await tag(1, 24)).hasMore).toBe(false);
    expect((await tag(1, 50)).items).toHaveLength(24);
  });

  it('refuses a page size over 50, a page below 1 and a list with nothing to list by', async () => {
    for (const query of ['tagId=werewolf&size=51', 'tagId=werewolf&page=0', 'tagId=werewolf&page=two', '']) {
      const answer = await site.call('GET', `/api/homepage/query?${query}`);
      expect(answer.code, query).toBe(422);
      expect(answer.data.fields).toBeTypeOf('object');
    }
  });

  it('lists a section for its more page, and answers 404 for a category or section that does not exist', async () => {
    const section = await site.call('GET', '/api/homepage/query?sectionId=more-recommendations');
    expect(section.data.items.map((card: { id: string }) => card.id)).toEqual([drama]);
    expect((await site.call('GET', '/api/homepage/query?tagId=nope')).code).toBe(404);
    expect((await site.call('GET', '/api/homepage/query?sectionId=nope')).code).toBe(404);
  });

  it('shows a video page with its episodes, locked and ready as this caller sees them', async () => {
    const { code, data } = await site.call('GET', `/api/video?id=${drama}`);
    expect(code).toBe(200);
    expect(data).toMatchObject({ id: drama, description: 'A bride for one year, a secret for life.', freeEpisodes: 1, priceCoins: 45, favorited: false, resume: null });
    expect(data.episodes).toEqual([
      { id: episode(1), number: 1, title: 'Episode 1', durationSeconds: 2, locked: false, ready: true },
      { id: episode(2), number: 2, title: 'Episode 2', durationSeconds: 2, locked: true, ready: true },
      { id: episode(3), number: 3, title: 'Episode 3', durationSeconds: 0, locked: true, ready: false },
    ]);
    expect((await site.call('GET', '/api/video?id=no-such-video')).code).toBe(404);
    expect((await site.call('GET', '/api/video')).code).toBe(422);
  });

  it('shows a favorite and where the viewer stopped on the video page', async () => {
    const token = await site.guest();
    await site.call('POST', '/api/user/favorite', { token, body: { videoId: drama } });
    await site.call('POST', '/api/user/history', { token, body: { episodeId: episode(1), positionSeconds: 1 } });
    const { data } = await site.call('GET', `/api/video?id=${drama}`, { token });
    expect(data.favorited).toBe(true);
    expect(data.resume).toEqual({ episodeId: episode(1), positionSeconds: 1 });
  });

  it('gives a free episode a playback URL under /media and names the next episode', async () => {
    const { code, data } = await site.call('GET', `/api/video/episode?id=${episode(1)}`);
    expect(code).toBe(200);
    expect(data).toMatchObject({ id: episode(1), videoId: drama, number: 1, title: 'Episode 1', durationSeconds: 2, nextEpisodeId: episode(2) });
    expect(data.playback.url).toMatch(new RegExp(`^/media/g/[\\w-]+\\.[\\w-]+/episodes/${episode(1)}/hls/master\\.m3u8$`));
    expect(Date.parse(data.playback.expiresAt)).toBeGreaterThan(Date.now());
  });

  it('answers 402 with the price and balance for a locked episode', async () => {
    const token = await site.guest();
    const answer = await site.call('GET', `/api/video/episode?id=${episode(2)}`, { token });
    expect(answer).toMatchObject({ status: 200, code: 402, message: 'This episode is locked' });
    expect(answer.data).toEqual({ episodeId: episode(2), videoId: drama, priceCoins: 45, balance: 0 });
  });

  it('answers 404 for an unknown episode', async () => {
    expect((await site.call('GET', '/api/video/episode?id=nope')).code).toBe(404);
  });

  it('counts a play for the first history record of the day of each viewer', async () => {
    // A series of its own, so plays other tests record (delivered a moment later) cannot count here.
    const counted = await site.series({ title: 'Counted Twice', tags: ['Romance'] });
    await adminOf(site).planEpisodes(counted, 1);
    const playCount = async () => (await site.call('GET', `/api/video?id=${counted}`)).data.playCount as number;
    const [first, second] = [await site.guest(), await site.guest()];
    for (const position of [0, 1]) await site.call('POST', '/api/user/history', { token: first, body: { episodeId: `${counted}-ep1`, positionSeconds: position } });
    await site.call('POST', '/api/user/history', { token: second, body: { episodeId: `${counted}-ep1`, positionSeconds: 0 } });
    await eventually(async () => (await playCount()) === 2, 10_000, 'two plays');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await playCount()).toBe(2);
    const card = (await site.call('GET', `/api/homepage/query?keyword=${encodeURIComponent('Counted Twice')}`)).data.items[0];
    expect(card).toMatchObject({ id: counted, playCount: 2 });
  });
});
