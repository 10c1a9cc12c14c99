import {
  Conflict,
  NotFound,
  pageOf,
  PaymentRequired,
  TtlCache,
  type Database,
  type Page,
  type RequestContext,
} from '@cliffhanger/platform';
import { episodeRepository as episodeRepo, type EpisodeRow } from './episode-repository.ts';
import { issuePlaybackGrant, mediaUrlOf } from './grants.ts';
import type { EntitlementPolicy, ViewerLists } from './ports.ts';
import { catalogRepository as repo, type CardRow, type VideoRow } from './repository.ts';
import { searchRepository as searchRepo } from './search-repository.ts';
import { inLanguageOrder } from './subtitle-playlists.ts';
import { subtitleLanguageOf } from './subtitles.ts';

export interface VideoCard {
  id: string;
  title: string;
  cover: string;
  tags: string[];
  episodeCount: number;
  playCount: number;
}

/** A series as a shared link previews it: `cover` is a path under /media (empty while it has none). */
export interface SeriesPreview {
  id: string;
  title: string;
  description: string;
  cover: string;
}

export interface Video extends VideoCard {
  description: string;
  freeEpisodes: number;
  priceCoins: number;
  favorited: boolean;
  /** Where this caller stopped in the series, for "continue watching"; null when never played. */
  resume: { episodeId: string; positionSeconds: number } | null;
  episodes: { id: string; number: number; title: string; durationSeconds: number; locked: boolean; ready: boolean }[];
}

export interface Episode {
  id: string;
  videoId: string;
  number: number;
  title: string;
  durationSeconds: number;
  nextEpisodeId: string | null;
  playback: { url: string; expiresAt: string };
  /** WebVTT tracks in the interface languages (codes en, es, fy, dy, pt), each labelled in its own language; [] when none. */
  subtitles: { lang: string; label: string; url: string }[];
}

export interface Homepage {
  carousel: { title: string; items: VideoCard[] };
  sections: { id: string; title: string; items: VideoCard[] }[];
}

export type CardQuery = { keyword: string } | { tagId: string } | { sectionId: string };

export interface CatalogServiceDeps {
  database: Database;
  entitlement: EntitlementPolicy;
  viewers: ViewerLists;
  mediaSecret: string;
  /** Where playback URLs point: the media edge's origin (MEDIA_EDGE_URL), or '' for the site's own /media. */
  mediaOrigin?: string;
}

export const CAROUSEL_TITLE = 'Featured Videos';
const HOMEPAGE_ITEMS = 12;
// The homepage is the hottest read and the same for everyone; play counts on it may lag this much.
const HOMEPAGE_CACHE_MS = 5_000;
// A series page's part that is the same for everyone (the series, its card, its episodes): every
// viewer who opens the series asks it, three queries each; kept as long as the homepage.
const SERIES_CACHE_MS = HOMEPAGE_CACHE_MS;
const MAX_SERIES_KEPT = 1_000;

export function presentCard(row: CardRow): VideoCard {
  return {
    id: row.id,
    title: row.title,
    cover: row.cover_key ? mediaUrlOf(row.cover_key) : '',
    tags: row.tags,
    episodeCount: Number(row.episode_count),
    playCount: Number(row.play_count),
  };
}

const watchable = (video: VideoRow, episode: EpisodeRow) => ({
  episodeId: episode.id,
  videoId: video.id,
  number: episode.number,
  freeEpisodes: video.freeEpisodes,
  priceCoins: video.priceCoins,
});

/** Browsing and watching: tags, homepage, lists and search, the video page, playback. */
export function createCatalogService(deps: CatalogServiceDeps) {
  const { database, entitlement, viewers } = deps;
  let homepageCache: { value: Homepage; until: number } | null = null;
  // The read itself is kept, so viewers who open a series at once share one; a forget drops it.
  const seriesCache = new TtlCache<string, Promise<{ video: VideoRow; card: VideoCard; episodes: EpisodeRow[] } | null>>(SERIES_CACHE_MS, MAX_SERIES_KEPT);

  /** A listed series as everyone sees it, or null. */
  function publicSeries(id: string) {
    const kept = seriesCache.get(id);
    if (kept) return kept;
    const read = (async () => {
      const video = await repo.videoById(database.db, id);
      if (!video || video.hidden) return null;
      const [[card], episodes] = await Promise.all([cardsInOrder([id]), episodeRepo.episodesOf(database.db, id)]);
      return { video, card: card!, episodes };
    })();
    seriesCache.set(id, read);
    // A failed read is not kept (unless a forget has put another in its place meanwhile).
    read.catch(() => seriesCache.get(id) === read && seriesCache.delete(id));
    return read;
  }

  /** Viewers' cards: a hidden series has none, wherever its id comes from (a section, a favorite, a ranking). */
  async function cardsInOrder(ids: string[]): Promise<VideoCard[]> {
    const byId = new Map((await repo.cards(database.db, ids)).flatMap((row) => (row.hidden ? [] : [[row.id, presentCard(row)] as const])));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async function buildHomepage(): Promise<Homepage> {
    const [sectionRows, items] = await Promise.all([repo.sectionList(database.db), repo.homepageItems(database.db, HOMEPAGE_ITEMS)]);
    const cards = new Map((await cardsInOrder([...new Set(items.map((item) => item.video_id))])).map((card) => [card.id, card]));
    const itemsOf = (sectionId: string) => items.filter((item) => item.section_id === sectionId).flatMap((item) => cards.get(item.video_id) ?? []);
    const carousel = sectionRows.find((section) => section.kind === 'carousel');
    return {
      carousel: { title: carousel?.title ?? CAROUSEL_TITLE, items: carousel ? itemsOf(carousel.id) : [] },
      sections: sectionRows
        .filter((section) => section.kind === 'section')
        .map((section) => ({ id: section.id, title: section.title, items: itemsOf(section.id) })),
    };
  }

  /** A series as `userId` sees it (null: a visitor who has unlocked nothing): their favorite, resume point and locks. */
  async function videoFor(userId: string | null, id: string): Promise<Video> {
    const [series, { favorited, resume }] = await Promise.all([publicSeries(id), userId ? viewers.viewerOf(userId, id) : { favorited: false, resume: null }]);
    if (!series) throw new NotFound('No such video');
    const { video, card, episodes } = series;
    const allowed = new Set(
      await entitlement.watchableNumbers(userId, { videoId: id, freeEpisodes: video.freeEpisodes, numbers: episodes.map((episode) => episode.number) }),
    );
    return {
      ...card,
      description: video.description,
      freeEpisodes: video.freeEpisodes,
      priceCoins: video.priceCoins,
      favorited,
      resume,
      episodes: episodes.map((episode) => ({
        id: episode.id,
        number: episode.number,
        title: episode.title,
        durationSeconds: episode.durationSeconds,
        locked: !allowed.has(episode.number),
        ready: episode.status === 'ready',
      })),
    };
  }

  return {
    tags: () => repo.tagList(database.db),

    async homepage(): Promise<Homepage> {
      if (homepageCache && homepageCache.until > Date.now()) return homepageCache.value;
      const value = await buildHomepage();
      homepageCache = { value, until: Date.now() + HOMEPAGE_CACHE_MS };
      return value;
    },

    /** Forgets cached pages after the catalog changed in this process. */
    forgetCachedPages() {
      homepageCache = null;
      seriesCache.clear();
    },

    /** Search, a category (/browse/{id}) or a section (/more/{id}), a page at a time. */
    async query(by: CardQuery, page: number, size: number): Promise<Page<VideoCard>> {
      const [offset, limit] = [(page - 1) * size, size + 1];
      let rows: { id: string }[];
      if ('keyword' in by) rows = await searchRepo.searchVideoIds(database.db, by.keyword, offset, limit);
      else if ('tagId' in by) {
        if (!(await repo.tagById(database.db, by.tagId))) throw new NotFound('No such category');
        rows = await repo.tagVideoIds(database.db, by.tagId, offset, limit);
      } else {
        if (!(await repo.sectionById(database.db, by.sectionId))) throw new NotFound('No such section');
        rows = await repo.sectionVideoIds(database.db, by.sectionId, offset, limit);
      }
      return pageOf(await cardsInOrder(rows.map((row) => row.id)), page, size);
    },

    /** A series with this viewer's favorite, resume point and locks. */
    video: (context: RequestContext, id: string): Promise<Video> => videoFor(context.userId, id),

    /** An episode to play, with a playback URL only a caller who may watch it receives. */
    async episode(context: RequestContext, id: string): Promise<Episode> {
      const episode = await episodeRepo.episodeById(database.db, id);
      const video = episode && (await repo.videoById(database.db, episode.videoId));
      if (!episode || !video || video.hidden) throw new NotFound('No such episode');
      if (!(await entitlement.mayWatch(context.userId, watchable(video, episode)))) {
        const balance = context.userId ? (await entitlement.standingOf(context.userId)).coins : 0;
        throw new PaymentRequired('This episode is locked', { episodeId: id, videoId: video.id, priceCoins: video.priceCoins, balance });
      }
      if (episode.status !== 'ready' || !episode.mediaPrefix) {
        throw new Conflict(
          episode.status === 'failed' ? 'This episode is not available' : 'This episode is still being prepared. Please try again in a minute.',
        );
      }
      const grant = issuePlaybackGrant(deps.mediaSecret, id);
      const granted = `${deps.mediaOrigin ?? ''}/media/g/${grant.token}`;
      const subtitles = inLanguageOrder(await episodeRepo.subtitlesOf(database.db, id));
      return {
        id,
        videoId: video.id,
        number: episode.number,
        title: episode.title,
        durationSeconds: episode.durationSeconds,
        nextEpisodeId: await episodeRepo.nextEpisodeId(database.db, video.id, episode.number),
        playback: { url: `${granted}/${episode.mediaPrefix}/master.m3u8`, expiresAt: grant.expiresAt.toISOString() },
        subtitles: subtitles.map((row) => ({ lang: row.lang, label: subtitleLanguageOf(row.lang).label, url: `${granted}/${row.storageKey}` })),
      };
    },

    /** The user service's view of the catalog (its CatalogDirectory port). */
    directory: {
      async cardsOf(videoIds: string[]): Promise<Map<string, VideoCard>> {
        return new Map((await cardsInOrder([...new Set(videoIds)])).map((card) => [card.id, card]));
      },
      async episodeRef(episodeId: string) {
        const episode = await episodeRepo.episodeById(database.db, episodeId);
        return episode ? { videoId: episode.videoId, number: episode.number } : null;
      },
      /** What unlocking an episode costs, whether it needs unlocking (its series' free episodes and price), and whether it plays yet. */
      episodeTerms: (episodeId: string) => episodeRepo.episodeTerms(database.db, episodeId),
      /**
       * A series as a visitor who has unlocked nothing sees it, or null when there is none: what the
       * gateway writes into the series page (its head for link previews and crawlers, its first screen).
       */
      async seriesPage(videoId: string): Promise<Video | null> {
        try {
          return await videoFor(null, videoId);
        } catch (error) {
          if (error instanceof NotFound) return null;
          throw error;
        }
      },
      /** The ids of listed series, most played first, at most `limit` (the gateway's sitemap). */
      listedSeries: async (limit: number): Promise<string[]> => (await repo.listedSeriesIds(database.db, limit)).map((row) => row.id),
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
