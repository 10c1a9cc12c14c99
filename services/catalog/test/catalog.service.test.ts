import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabaseQueue, createDiskStorage, createPostgresBus, systemContext, type Database } from '@cliffhanger/platform';
import { openMigratedDatabase, silentLogger, tempDir } from '@cliffhanger/platform/testing';
import { transcodeRequests } from '@cliffhanger/transcoder';
import { catalogModule } from '../src/index.ts';
import { createCatalogAdmin } from '../src/admin.ts';
import { createCatalogService, type CatalogService } from '../src/service.ts';
import type { EntitlementPolicy } from '../src/ports.ts';

// The catalog's rules on a real database (PGlite, or PostgreSQL in npm test's second pass), without
// HTTP. Who may watch what is the entitlement port's answer: here, a viewer who unlocked episode 3.
const mayWatch = (userId: string | null, number: number, freeEpisodes: number) => number <= freeEpisodes || (userId === 'unlocker' && number === 3);
const unlockedThird: EntitlementPolicy = {
  mayWatch: async (userId, episode) => mayWatch(userId, episode.number, episode.freeEpisodes),
  watchableNumbers: async (userId, series) => series.numbers.filter((number) => mayWatch(userId, number, series.freeEpisodes)),
  standingOf: async () => ({ coins: 15 }),
};

let database: Database;
let catalog: CatalogService;
let admin: ReturnType<typeof createCatalogAdmin>;
beforeAll(async () => {
  database = await openMigratedDatabase(catalogModule);
  catalog = createCatalogService({
    database,
    entitlement: unlockedThird,
    viewers: { viewerOf: async () => ({ favorited: false, resume: null }) },
    mediaSecret: 'catalog-service-test-secret-0123456789',
  });
  admin = createCatalogAdmin({
    database,
    bus: createPostgresBus(database, silentLogger),
    storage: createDiskStorage(tempDir('catalog-media-')),
    transcoder: transcodeRequests(createDatabaseQueue(database, silentLogger)),
    onChange: catalog.forgetCachedPages,
  });
  await admin.createSeries({ id: 'locks', title: 'Locks and Keys', tags: ['Thriller'], freeEpisodes: 2, priceCoins: 30 });
  await admin.planEpisodes('locks', 4);
});
afterAll(() => database?.close());

const viewer = (userId: string | null) => ({ ...systemContext('test'), userId });

describe('the catalog service on a real database', () => {
  it("marks an episode locked exactly when the entitlement port says this viewer may not watch it", async () => {
    const anonymous = await catalog.video(viewer(null), 'locks');
    expect(anonymous.episodes.map((episode) => episode.locked)).toEqual([false, false, true, true]);
    const unlocker = await catalog.video(viewer('unlocker'), 'locks');
    expect(unlocker.episodes.map((episode) => episode.locked)).toEqual([false, false, false, true]);
    expect(unlocker).toMatchObject({ freeEpisodes: 2, priceCoins: 30, episodeCount: 4 });
  });

  it('answers a locked episode with 402, its price and the balance', async () => {
    await expect(catalog.episode(viewer('someone'), 'locks-ep4')).rejects.toMatchObject({
      code: 402,
      data: { episodeId: 'locks-ep4', videoId: 'locks', priceCoins: 30, balance: 15 },
    });
  });

  it('finds a series by a word of its title and by its tag', async () => {
    expect((await catalog.query({ keyword: 'keys' }, 1, 20)).items.map((card) => card.id)).toEqual(['locks']);
    expect((await catalog.query({ tagId: 'thriller' }, 1, 20)).items.map((card) => card.id)).toEqual(['locks']);
    expect((await catalog.query({ keyword: 'nothing like it' }, 1, 20)).items).toEqual([]);
  });

  describe('a series page', () => {
    afterEach(() => vi.useRealTimers());

    it("is read once for everyone for a few seconds, and again at once after a change made here", async () => {
      const started = Date.now();
      vi.useFakeTimers({ toFake: ['Date'], now: started });
      await admin.createSeries({ id: 'kept', title: 'Kept For Everyone', tags: ['Thriller'], freeEpisodes: 1, priceCoins: 10 });
      await admin.planEpisodes('kept', 2);
      expect((await catalog.video(viewer(null), 'kept')).description).toBe('');
      // Changed behind the service's back, as another process does: every viewer sees what was read...
      await database.rawTransaction((sql) => sql.query(`update catalog.videos set description = 'written elsewhere' where id = 'kept'`));
      const unlocker = await catalog.video(viewer('unlocker'), 'kept');
      expect(unlocker.description).toBe('');
      expect(unlocker.episodes.map((episode) => episode.locked)).toEqual([false, true]);
      // ...until the few seconds are out.
      vi.setSystemTime(started + 5_001);
      expect((await catalog.video(viewer(null), 'kept')).description).toBe('written elsewhere');
      // A change through this process is seen at once, hiding included.
      const by = { context: systemContext('test'), caller: { actor: 'token', role: 'admin' as const } };
      await admin.updateSeries('kept', { title: 'Kept No More' }, by);
      expect((await catalog.video(viewer(null), 'kept')).title).toBe('Kept No More');
      await admin.updateSeries('kept', { hidden: true }, by);
      await expect(catalog.video(viewer(null), 'kept')).rejects.toMatchObject({ code: 404 });
    });
  });

  it('shares cards and episode references with other services through its directory', async () => {
    expect([...(await catalog.directory.cardsOf(['locks', 'missing'])).keys()]).toEqual(['locks']);
    expect(await catalog.directory.episodeRef('locks-ep3')).toEqual({ videoId: 'locks', number: 3 });
    expect(await catalog.directory.episodeRef('locks-ep9')).toBeNull();
  });
});
