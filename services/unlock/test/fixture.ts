import { sql } from 'drizzle-orm';
import { createPostgresBus, queryRows, systemContext, type RequestContext } from '@cliffhanger/platform';
import { openMigratedDatabase, silentLogger, testClock } from '@cliffhanger/platform/testing';
import { unlockModule } from '../src/module.ts';
import type { CatalogTerms, EpisodeOffer, EpisodeStatus, VideoCard } from '../src/ports.ts';
import { createUnlockService } from '../src/service.ts';

export const DAY_MS = 86_400_000;

/** The unlock service on a fresh database (PGlite, or the real server under TEST_DATABASE_URL), with a clock the test moves. */
export async function openUnlocks(options: { bonusCoinDays?: number } = {}) {
  const database = await openMigratedDatabase(unlockModule);
  const clock = testClock();
  const unlocks = createUnlockService({ database, bus: createPostgresBus(database, silentLogger), now: clock.now, ...options });
  const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(database.db, query);
  return {
    database,
    unlocks,
    clock,
    rows,
    ledgerOf: (userId: string) =>
      rows<{ kind: string; reference: string; paid_delta: number; bonus_delta: number; paid_balance: number; bonus_balance: number }>(
        sql`select kind, reference, paid_delta, bonus_delta, paid_balance, bonus_balance from unlock.ledger where user_id = ${userId} order by id`,
      ),
    walletOf: async (userId: string) =>
      (await rows<{ paid_coins: number; bonus_coins: number }>(sql`select paid_coins, bonus_coins from unlock.wallets where user_id = ${userId}`))[0],
    eventsOf: (type: string, userId: string) =>
      rows<{ data: Record<string, unknown> }>(sql`select data from platform.outbox where type = ${type} and user_id = ${userId} order by id`),
    close: () => database.close(),
  };
}

let users = 0;
/** A new user id, and the request context of a call they make. */
export function newUser(): { userId: string; context: RequestContext } {
  const userId = `user-${++users}-${Math.random().toString(36).slice(2, 8)}`;
  return { userId, context: { ...systemContext(`request-${users}`), userId } };
}

/** Episode `number` of `videoId`: the first `freeEpisodes` free, the rest at `priceCoins`; transcoded (`ready`) unless told. */
export const episode = (videoId: string, number: number, priceCoins = 10, freeEpisodes = 0, status: EpisodeStatus = 'ready'): EpisodeOffer => ({
  episodeId: `${videoId}-ep${number}`,
  videoId,
  number,
  freeEpisodes,
  priceCoins,
  status,
});

const cardOf = (videoId: string): VideoCard => ({ id: videoId, title: `Series ${videoId}`, cover: `/media/public/covers/${videoId}.jpg`, tags: ['Romance'], episodeCount: 100, playCount: 0 });

/** The catalog's side of the unlock routes over a Map: that is the other service's port. */
export function catalogOf(episodes: EpisodeOffer[]): CatalogTerms {
  const byId = new Map(episodes.map((terms) => [terms.episodeId, terms]));
  return {
    episodeTerms: async (episodeId) => byId.get(episodeId) ?? null,
    cardsOf: async (videoIds) => new Map(videoIds.filter((id) => [...byId.values()].some((terms) => terms.videoId === id)).map((id) => [id, cardOf(id)])),
  };
}
