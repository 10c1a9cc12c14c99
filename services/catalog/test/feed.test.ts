import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '@cliffhanger/platform';
import type { FeedItem } from '../src/feed.ts';
import { HOUR, openViewing, played, type Viewing } from './viewing.ts';

// The "For You" feed on a real database: what the viewer has not played first, then what rises
// fastest, then the tags they like; every item an episode they may play, with its grant.
let viewing: Viewing;
const now = new Date();
const ago = (ms: number) => new Date(now.getTime() - ms);
const as = (userId: string | null) => ({ ...systemContext('test'), userId });
const feed = (userId: string | null, page = 1, size = 20) => viewing.feed(now).page(as(userId), page, size);
const order = async (userId: string | null) => (await feed(userId)).items.map((item) => item.video.id);

beforeAll(async () => {
  viewing = await openViewing();
  // Created in this order: among equals the newest comes first.
  await viewing.series('palace', { tags: ['Palace'] });
  await viewing.series('wolf-one', { tags: ['Werewolf'], ready: 3 });
  await viewing.series('ceo', { tags: ['CEO'] });
  await viewing.series('wolf-two', { tags: ['Werewolf', 'Romance'] });
  await viewing.series('rising', { tags: ['Revenge'] });
  // Nothing free to play: every episode locked, or none ready yet.
  await viewing.series('all-locked', { tags: ['Werewolf'], freeEpisodes: 0, ready: 2 });
  await viewing.series('not-ready', { tags: ['Werewolf'], ready: 0 });
  // "rising" is played by others in the last hours: it rises.
  await viewing.publish(played('fan-1', 'rising-ep1', ago(2 * HOUR)), played('fan-2', 'rising-ep1', ago(HOUR)));
});
afterAll(() => viewing?.close());

describe('the For You feed', () => {
  it('shows a new viewer what rises fastest first, then the most played and the newest, each on its first episode', async () => {
    const { items, hasMore } = await feed('newcomer');
    expect(items.map((item) => [item.video.id, item.episode.number])).toEqual([
      ['rising', 1],
      ['wolf-two', 1],
      ['ceo', 1],
      ['wolf-one', 1],
      ['palace', 1],
    ]);
    expect(hasMore).toBe(false);
  });

  it('gives every item the episode call\'s answer: the episode of that series with a playback grant', async () => {
    const [item] = (await feed('newcomer')).items as [FeedItem];
    expect(item.video).toMatchObject({ id: 'rising', title: 'Series rising', tags: ['Revenge'], episodeCount: 3, playCount: 2 });
    expect(item.episode).toMatchObject({ id: 'rising-ep1', videoId: 'rising', number: 1, durationSeconds: 60, nextEpisodeId: 'rising-ep2', subtitles: [] });
    expect(item.episode.playback.url).toMatch(/^\/media\/g\/[\w-]+\.[\w-]+\/media\/rising-ep1\/master\.m3u8$/);
    expect(Date.parse(item.episode.playback.expiresAt)).toBeGreaterThan(Date.now());
  });

  it('puts the series a viewer played last, opened where they stopped', async () => {
    await viewing.publish(played('watcher', 'rising-ep1', ago(HOUR)), played('watcher', 'wolf-one-ep2', ago(30 * 60_000), 25));
    const { items } = await feed('watcher');
    expect(items.map((item) => [item.video.id, item.episode.id])).toEqual([
      ['wolf-two', 'wolf-two-ep1'],
      ['ceo', 'ceo-ep1'],
      ['palace', 'palace-ep1'],
      // Seen: still rising first among them, and each on the episode the viewer was watching.
      ['rising', 'rising-ep1'],
      ['wolf-one', 'wolf-one-ep2'],
    ]);
  });

  it('puts the series of the tags a viewer likes before the others they have not seen', async () => {
    // By now "rising" and "wolf-one" rise (the watcher above played them); the rest are level.
    expect(await order('newcomer')).toEqual(['rising', 'wolf-one', 'wolf-two', 'ceo', 'palace']);
    await viewing.publish({ type: 'favorite.changed', userId: 'palace-fan', data: { videoId: 'palace', favorite: true }, at: now });
    expect(await order('palace-fan')).toEqual(['rising', 'wolf-one', 'palace', 'wolf-two', 'ceo']);
    // Taken out of their list, the liking goes with it.
    await viewing.publish({ type: 'favorite.changed', userId: 'palace-fan', data: { videoId: 'palace', favorite: false }, at: now });
    expect(await order('palace-fan')).toEqual(await order('newcomer'));
  });

  it('opens a series on its first free episode when the viewer may no longer play where they stopped', async () => {
    await viewing.publish(played('lapsed', 'wolf-one-ep3', ago(HOUR)), played('unlocker', 'wolf-one-ep3', ago(HOUR)));
    const episodeOf = async (userId: string) => (await feed(userId)).items.find((item) => item.video.id === 'wolf-one')?.episode.id;
    // Episode 3 is locked for "lapsed" (free are 1 and 2); "unlocker" unlocked it.
    expect(await episodeOf('lapsed')).toBe('wolf-one-ep1');
    expect(await episodeOf('unlocker')).toBe('wolf-one-ep3');
  });

  it('never offers a locked episode: a series with nothing free to play is left out', async () => {
    const items = (await feed(null)).items;
    expect(items.map((item) => item.video.id)).not.toContain('all-locked');
    expect(items.map((item) => item.video.id)).not.toContain('not-ready');
    for (const item of items) expect(item.episode.number).toBeLessThanOrEqual(2);
  });

  it('pages through the feed without repeating or skipping a series', async () => {
    const pages = [await feed('newcomer', 1, 2), await feed('newcomer', 2, 2), await feed('newcomer', 3, 2)];
    expect(pages.map((page) => [page.items.length, page.hasMore])).toEqual([
      [2, true],
      [2, true],
      [1, false],
    ]);
    expect(pages.flatMap((page) => page.items.map((item) => item.video.id))).toEqual(await order('newcomer'));
    expect((await feed('newcomer', 4, 2)).items).toEqual([]);
  });
});
