import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  appendEvents,
  createDatabaseQueue,
  createDiskStorage,
  createPostgresBus,
  queryRows,
  systemContext,
  type Database,
  type EventBus,
  type EventType,
} from '@cliffhanger/platform';
import { eventually, openMigratedDatabase, silentLogger, tempDir } from '@cliffhanger/platform/testing';
import { transcodeRequests } from '@cliffhanger/transcoder';
import { catalogModule } from '../src/index.ts';
import { createCatalogAdmin, type CatalogAdmin } from '../src/admin.ts';
import { subscribeCatalogConsumers } from '../src/events.ts';
import { createFeed } from '../src/feed.ts';
import type { EntitlementPolicy } from '../src/ports.ts';
import { createRankings, subscribeRankingConsumers } from '../src/rankings.ts';
import { episodeRepository as episodeRepo } from '../src/episode-repository.ts';
import { createCatalogService, type CatalogService } from '../src/service.ts';

/**
 * The catalog's rankings and feed on a real database and the real Postgres bus, without HTTP: the
 * user service's events are written to the outbox as it writes them, at the times a test chooses,
 * and the catalog's own consumers apply them. Who may watch what is the entitlement port's answer:
 * the free episodes, and episode 3 for the viewer "unlocker".
 */
const mayWatch = (userId: string | null, number: number, freeEpisodes: number) => number <= freeEpisodes || (userId === 'unlocker' && number === 3);
const unlockedThird: EntitlementPolicy = {
  mayWatch: async (userId, episode) => mayWatch(userId, episode.number, episode.freeEpisodes),
  watchableNumbers: async (userId, series) => series.numbers.filter((number) => mayWatch(userId, number, series.freeEpisodes)),
  standingOf: async () => ({ coins: 0 }),
};

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface Viewing {
  database: Database;
  bus: EventBus;
  catalog: CatalogService;
  admin: CatalogAdmin;
  /** The rankings and the feed read against `clock` (a fresh instance each time: no cached page). */
  rankings(clock: Date): ReturnType<typeof createRankings>;
  feed(clock: Date): ReturnType<typeof createFeed>;
  /** A series with `episodes` planned episodes, the first `ready` of them transcoded. */
  series(id: string, options: { tags: string[]; episodes?: number; ready?: number; freeEpisodes?: number }): Promise<string>;
  /** Writes events as their producers do (the outbox), as if they happened at `at`, and waits until the catalog applied them. */
  publish(...events: { type: EventType; userId: string; data: Record<string, unknown>; at: Date }[]): Promise<void>;
  close(): Promise<void>;
}

export async function openViewing(): Promise<Viewing> {
  const database = await openMigratedDatabase(catalogModule);
  const bus = createPostgresBus(database, silentLogger, { pollMs: 20 });
  const catalog = createCatalogService({
    database,
    entitlement: unlockedThird,
    viewers: { viewerOf: async () => ({ favorited: false, resume: null }) },
    mediaSecret: 'catalog-viewing-test-secret-0123456789',
  });
  const storage = createDiskStorage(tempDir('catalog-viewing-'));
  const admin = createCatalogAdmin({
    database,
    bus,
    storage,
    transcoder: transcodeRequests(createDatabaseQueue(database, silentLogger)),
    onChange: catalog.forgetCachedPages,
  });
  subscribeCatalogConsumers(bus, { database, storage, onChange: catalog.forgetCachedPages });
  subscribeRankingConsumers(bus);
  await bus.start();

  /** Every event written so far has been numbered and read by every consumer. */
  const applied = async () => {
    const [row] = await queryRows<{ unnumbered: number; last: number | null; behind: number }>(database.db, sql`
      select (select count(*) from platform.outbox where seq is null)::int as unnumbered,
             (select max(seq) from platform.outbox) as last,
             (select count(*) from platform.consumer_offsets where seq < (select coalesce(max(seq), 0) from platform.outbox))::int as behind`);
    return Number(row!.unnumbered) === 0 && Number(row!.behind) === 0;
  };

  return {
    database,
    bus,
    catalog,
    admin,
    rankings: (clock) => createRankings({ database, cardsOf: catalog.directory.cardsOf, now: () => clock }),
    feed: (clock) => createFeed({ database, cardsOf: catalog.directory.cardsOf, episode: catalog.episode, now: () => clock }),
    async series(id, { tags, episodes = 3, ready = 1, freeEpisodes = 2 }) {
      await admin.createSeries({ id, title: `Series ${id}`, tags, freeEpisodes, priceCoins: 30 });
      await admin.planEpisodes(id, episodes);
      for (let number = 1; number <= ready; number++) {
        const episodeId = `${id}-ep${number}`;
        const uploadId = randomUUID();
        // What an upload and its transcode.completed leave behind (uploads.test.ts runs the real ones).
        await episodeRepo.attachUpload(database.db, episodeId, { uploadId, sourceKey: `uploads/${episodeId}/${uploadId}` });
        await episodeRepo.finishEpisode(database.db, episodeId, uploadId, { status: 'ready', durationSeconds: 60, mediaPrefix: `media/${episodeId}` });
      }
      return id;
    },
    async publish(...events) {
      await database.transaction((tx) =>
        appendEvents(
          tx,
          events.map(({ type, userId, data, at }) => ({ context: systemContext('test'), type, data, userId, occurredAt: at })),
        ),
      );
      bus.nudge();
      await eventually(applied, 10_000, 'the catalog to apply the events');
    },
    async close() {
      await bus.stop();
      await database.close();
    },
  };
}

/** history.recorded of one episode, as the user service writes it when a viewer plays. */
export const played = (userId: string, episodeId: string, at: Date, positionSeconds = 10) => {
  const [, videoId, number] = /^(.*)-ep(\d+)$/.exec(episodeId)!;
  return { type: 'history.recorded' as const, userId, at, data: { videoId: videoId!, episodeId, episodeNumber: Number(number), positionSeconds } };
};
