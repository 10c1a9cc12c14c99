import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip, silentLogger, startSite as startPlatformSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule, type LocalCatalogClient } from '@cliffhanger/catalog';
import { ffmpegTools, transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';
import { demoModule, seedDemoCatalog, type DemoCatalog } from '../src/index.ts';

// The seeder's background work is left off: each test seeds the tiny catalog itself.
const startSite = (env: Record<string, string> = {}) =>
  startPlatformSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule, demoModule], env, background: false });
const adminOf = (site: Site) => (site.instances.get('catalog')!.client as LocalCatalogClient).admin;

// The demo catalog's shape at a size two shared cores render in seconds.
const tiny: DemoCatalog = {
  tags: ['Romance', 'Werewolf'],
  series: [
    { id: 'first-love', title: 'First Love', description: 'The first series.', tags: ['Romance'], hue: 330, episodes: 2, freeEpisodes: 1, priceCoins: 40 },
    { id: 'moon-howl', title: 'Moon Howl', description: 'The second series.', tags: ['Werewolf'], hue: 220, episodes: 1, freeEpisodes: 1, priceCoins: 40 },
  ],
  sections: [
    { id: 'featured', title: 'Featured Videos', kind: 'carousel', videoIds: ['first-love', 'moon-howl'] },
    { id: 'more-recommendations', title: 'More Recommendations', kind: 'section', videoIds: ['moon-howl', 'first-love'] },
  ],
  episodeSeconds: 2,
  width: 240,
  height: 426,
};

let site: Site;
const seed = () => seedDemoCatalog({ admin: adminOf(site), logger: silentLogger, signal: new AbortController().signal, catalog: tiny });

beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());

describe('the demo catalog', () => {
  it('fills an empty catalog through the real upload path, first episodes first', async () => {
    await seed();
    const uploads = await Promise.all(['first-love-ep1', 'moon-howl-ep1', 'first-love-ep2'].map((id) => site.settled(id)));
    expect(uploads.map((episode) => episode.status)).toEqual(['ready', 'ready', 'ready']);

    const { data: homepage } = await site.call('GET', '/api/homepage');
    expect(homepage.carousel).toMatchObject({ title: 'Featured Videos', items: [{ id: 'first-love', episodeCount: 2 }, { id: 'moon-howl' }] });
    expect(homepage.sections[0]).toMatchObject({ title: 'More Recommendations', items: [{ id: 'moon-howl' }, { id: 'first-love' }] });
    expect(homepage.carousel.items[0].cover).toMatch(/^\/media\/public\/covers\/first-love-/);
    expect((await site.call('GET', '/api/tag')).data.map((tag: { name: string }) => tag.name)).toEqual(['Romance', 'Werewolf']);

    const episode = await site.call('GET', '/api/video/episode?id=first-love-ep1');
    expect((await fetch(site.url + episode.data.playback.url)).status).toBe(200);
    // Subtitles in all five interface languages, listed in the episode and in its master playlist.
    expect(episode.data.subtitles.map((subtitle: { lang: string; label: string }) => `${subtitle.lang} ${subtitle.label}`)).toEqual([
      'en English', 'es Español', 'fy Français', 'dy Deutsch', 'pt Português',
    ]);
    expect(await (await fetch(site.url + episode.data.subtitles[1].url)).text()).toContain('Episodio 1');
    expect((await (await fetch(site.url + episode.data.playback.url)).text()).match(/TYPE=SUBTITLES/g)).toHaveLength(5);
  }, 120_000);

  it('is not made again on a later start', async () => {
    await seed();
    const { data } = await site.call('GET', '/api/video?id=first-love');
    expect(data.episodes).toHaveLength(2);
    expect((await site.call('GET', '/api/homepage/query?tagId=romance')).data.items).toHaveLength(1);
  });

  it('stays away from a catalog that has content of its own', async () => {
    const other = await startSite();
    try {
      await other.series({ title: 'Operator Content' });
      await seedDemoCatalog({ admin: adminOf(other), logger: silentLogger, signal: new AbortController().signal, catalog: tiny });
      expect((await other.call('GET', '/api/video?id=first-love')).code).toBe(404);
    } finally {
      await other.close();
    }
  }, 60_000);
});

describe('a shortened demo (DEMO_EPISODES)', () => {
  it('renders only the first episodes of each series, and a later start without the limit renders the rest', async () => {
    const short = await startSite();
    try {
      const admin = adminOf(short);
      const seedUpTo = (episodes?: number) => seedDemoCatalog({ admin, logger: silentLogger, signal: new AbortController().signal, catalog: tiny, episodes });
      await seedUpTo(1);
      expect(await Promise.all(['first-love-ep1', 'moon-howl-ep1'].map(async (id) => (await short.settled(id)).status))).toEqual(['ready', 'ready']);
      expect(await admin.episodeStatus('first-love-ep2')).toBe('planned');
      expect(await admin.demoSeedState()).not.toBe('finished');

      await seedUpTo(undefined);
      expect((await short.settled('first-love-ep2')).status).toBe('ready');
      expect(await admin.demoSeedState()).toBe('finished');
    } finally {
      await short.close();
    }
  }, 120_000);
});

describe('readiness with the demo catalog on', () => {
  it('is not ready until something can be played', async () => {
    const starting = await startSite({ DEMO: '1' });
    try {
      const before = await fetch(`${starting.url}/readyz`);
      expect(before.status).toBe(503);
      expect(await before.json()).toMatchObject({ code: 503, message: 'starting: the demo catalog is preparing its first episode' });
      const video = await starting.series({ title: 'Warm Up' });
      const upload = await starting.upload(video, await makeClip(ffmpegTools()));
      await starting.settled(upload.data.id);
      expect((await fetch(`${starting.url}/readyz`)).status).toBe(200);
    } finally {
      await starting.close();
    }
  }, 120_000);
});
