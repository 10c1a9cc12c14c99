import { api, type Page } from './client';
import type { Episode, Homepage, Tag, Video, VideoCard } from './types';

export type CatalogFilter = { keyword: string } | { tagId: string } | { sectionId: string };

/** Lists kept from what viewers play, asked for like a homepage section (docs/api.md). */
export const RANKING_SECTIONS = ['continue', 'top', 'trending', 'new'] as const;
export type RankingSection = (typeof RANKING_SECTIONS)[number];

/** One item of the vertical "For You" feed: a series and the episode it opens on, ready to play. */
export interface FeedItem {
  video: VideoCard;
  episode: Episode;
}

export const catalogCalls = {
  tags: () => api.get<Tag[]>('/api/tag'),
  homepage: () => api.get<Homepage>('/api/homepage'),
  query: (filter: CatalogFilter, page: number, size: number) =>
    api.get<Page<VideoCard>>('/api/homepage/query', { ...filter, page, size }),
  video: (id: string) => api.get<Video>('/api/video', { id }),
  episode: (id: string) => api.get<Episode>('/api/video/episode', { id }),
  feed: (page: number, size: number) => api.get<Page<FeedItem>>('/api/video/feed', { page, size }),
};
