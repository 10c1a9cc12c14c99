import { TtlCache, type Database, type EventBus, type Page, type RequestContext } from '@cliffhanger/platform';
import type { HistoryRecorded } from './events.ts';
import { rankingsRepository as rankings, type Viewing } from './rankings-repository.ts';
import type { VideoCard } from './service.ts';

/**
 * The lists `GET /api/homepage/query?sectionId=...` answers besides the operator's sections, kept
 * from events by the consumers below (and by the play counter in events.ts), never by reading
 * history at request time:
 * - `top`: the most plays in the last 7 days, counted to the hour (168 hours up to the current one);
 * - `trending`: the plays of the last 24 hours minus those of the 24 before, largest rise first,
 *   only series that rose;
 * - `new`: the newest series;
 * - `continue`: the caller's own series, the latest played first; nobody else's, empty for anonymous.
 */
export const RANKING_SECTIONS = ['top', 'trending', 'new', 'continue'] as const;
export type RankingSection = (typeof RANKING_SECTIONS)[number];

export const isRankingSection = (id: string): id is RankingSection => (RANKING_SECTIONS as readonly string[]).includes(id);

/** Points a viewer's liking of a tag gets for each series of it they start, and while one is in their list. */
const STARTED_POINTS = 1;
const FAVORITE_POINTS = 3;

// The shared rankings are the same for everyone and change only as plays are counted: like the
// homepage, a page of them may lag this much in each process.
const RANKING_CACHE_MS = 5_000;

export interface RankingsDeps {
  database: Database;
  /** Cards of the series that exist, by id (the catalog's directory). */
  cardsOf(videoIds: string[]): Promise<Map<string, VideoCard>>;
  /** The clock the time windows are read against. */
  now?: () => Date;
}

export function createRankings(deps: RankingsDeps) {
  const { database, cardsOf } = deps;
  const now = deps.now ?? (() => new Date());
  const cache = new TtlCache<string, Page<VideoCard>>(RANKING_CACHE_MS, 500);

  async function idsOf(userId: string | null, section: RankingSection, offset: number, limit: number): Promise<{ id: string }[]> {
    const db = database.db;
    if (section === 'top') return rankings.topIds(db, now(), offset, limit);
    if (section === 'trending') return rankings.trendingIds(db, now(), offset, limit);
    if (section === 'new') return rankings.newestIds(db, offset, limit);
    return userId ? rankings.continueIds(db, userId, offset, limit) : [];
  }

  async function pageOf(userId: string | null, section: RankingSection, page: number, size: number): Promise<Page<VideoCard>> {
    const shared = section !== 'continue';
    const key = `${section}:${page}:${size}`;
    const cached = shared ? cache.get(key) : undefined;
    if (cached) return cached;
    const rows = await idsOf(userId, section, (page - 1) * size, size + 1);
    // Whether more follow is the rows' to say: a card missing (a series taken down meanwhile) must not end the list.
    const ids = rows.slice(0, size).map((row) => row.id);
    const cards = await cardsOf(ids);
    const result = { items: ids.flatMap((id) => cards.get(id) ?? []), page, size, hasMore: rows.length > size };
    if (shared) cache.set(key, result);
    return result;
  }

  return {
    /** A page of one ranking, as cards; `continue` is the caller's own. */
    page: (context: RequestContext, section: RankingSection, page: number, size: number) => pageOf(context.userId, section, page, size),

    /** The first page of each ranking every viewer shares (the gateway draws the home page from them). */
    async shared(size: number): Promise<Record<Exclude<RankingSection, 'continue'>, Page<VideoCard>>> {
      const [top, trending, latest] = await Promise.all([pageOf(null, 'top', 1, size), pageOf(null, 'trending', 1, size), pageOf(null, 'new', 1, size)]);
      return { top, trending, new: latest };
    },

    /** Forgets cached pages after the catalog changed in this process. */
    forget() {
      cache.deleteWhere(() => true);
    },
  };
}

export type Rankings = ReturnType<typeof createRankings>;

/**
 * The viewers' places and likings, from the user service's events: a history record moves the
 * viewer's place in the series (and, the first time, likes its tags); a favorite likes or unlikes
 * them; a guest who logs in brings theirs to the member. Each event applies once (the bus's rule).
 */
export function subscribeRankingConsumers(bus: EventBus): void {
  bus.subscribeBatch('catalog.viewers', ['history.recorded', 'favorite.changed', 'user.logged_in'], async (events, tx) => {
    // A run of history records goes in one statement; a favorite or a login between them, in its place.
    let viewings: Viewing[] = [];
    const recordViewings = async () => {
      await rankings.recordViewings(tx, viewings, STARTED_POINTS);
      viewings = [];
    };
    for (const event of events) {
      const userId = event.userId;
      if (!userId) continue;
      if (event.type === 'history.recorded') {
        const data = event.data as unknown as HistoryRecorded;
        if (data.videoId && data.episodeId)
          viewings.push({ userId, videoId: data.videoId, episodeId: data.episodeId, positionSeconds: Number(data.positionSeconds) || 0, time: event.time });
        continue;
      }
      await recordViewings();
      if (event.type === 'favorite.changed') {
        const data = event.data as { videoId?: string; favorite?: boolean };
        if (data.videoId) await rankings.likeTagsOf(tx, userId, data.videoId, data.favorite ? FAVORITE_POINTS : -FAVORITE_POINTS);
      } else {
        const guestId = (event.data as { mergedGuestId?: string | null }).mergedGuestId;
        if (guestId && guestId !== userId) await rankings.mergeViewer(tx, guestId, userId);
      }
    }
    await recordViewings();
  });
}
