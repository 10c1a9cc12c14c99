import { AppError, type Database, type Page, type RequestContext } from '@cliffhanger/platform';
import { rankingsRepository as rankings, type FeedRow } from './rankings-repository.ts';
import type { Episode, VideoCard } from './service.ts';

/** One item of the vertical "For You" feed: a series and the episode it opens on, ready to play. */
export interface FeedItem {
  video: VideoCard;
  episode: Episode;
}

export interface FeedDeps {
  database: Database;
  /** Cards of the series that exist, by id (the catalog's directory). */
  cardsOf(videoIds: string[]): Promise<Map<string, VideoCard>>;
  /** The episode call itself: the viewer's entitlement, readiness and a playback grant, as `GET /api/video/episode` answers. */
  episode(context: RequestContext, id: string): Promise<Episode>;
  /** The clock "trending" is read against. */
  now?: () => Date;
}

// Answers of the episode call that mean "not this one for this viewer": locked (402), gone (404),
// not ready (409). The feed then opens the series on its first free episode instead, or leaves it out.
const NOT_PLAYABLE = new Set([402, 404, 409]);

/**
 * The "For You" feed (`GET /api/video/feed`): series the viewer has not played first, then those
 * rising fastest, then those of the tags they like best (rankings-repository.ts `feedRows`). Each
 * opens where the viewer stopped in it, else on its first free episode, and carries the same
 * episode and grant the episode call gives: a locked episode is never in it.
 */
export function createFeed(deps: FeedDeps) {
  const { database, cardsOf } = deps;
  const now = deps.now ?? (() => new Date());

  async function playableEpisode(context: RequestContext, row: FeedRow): Promise<Episode | null> {
    for (const id of new Set([row.resume_episode_id, row.start_episode_id])) {
      if (!id) continue;
      try {
        return await deps.episode(context, id);
      } catch (error) {
        if (!(error instanceof AppError && NOT_PLAYABLE.has(error.code))) throw error;
      }
    }
    return null;
  }

  return {
    async page(context: RequestContext, page: number, size: number): Promise<Page<FeedItem>> {
      const rows = await rankings.feedRows(database.db, context.userId, now(), (page - 1) * size, size + 1);
      const shown = rows.slice(0, size);
      const [cards, episodes] = await Promise.all([
        cardsOf(shown.map((row) => row.video_id)),
        Promise.all(shown.map((row) => playableEpisode(context, row))),
      ]);
      const items = shown.flatMap((row, index) => {
        const video = cards.get(row.video_id);
        const episode = episodes[index];
        return video && episode ? [{ video, episode }] : [];
      });
      return { items, page, size, hasMore: rows.length > size };
    },
  };
}

export type Feed = ReturnType<typeof createFeed>;
