import { api, type Page } from './client';
import type { Episode, Homepage, Tag, Video, VideoCard } from './types';

export type CatalogFilter = { keyword: string } | { tagId: string } | { sectionId: string };

export const catalogCalls = {
  tags: () => api.get<Tag[]>('/api/tag'),
  homepage: () => api.get<Homepage>('/api/homepage'),
  query: (filter: CatalogFilter, page: number, size: number) =>
    api.get<Page<VideoCard>>('/api/homepage/query', { ...filter, page, size }),
  video: (id: string) => api.get<Video>('/api/video', { id }),
  episode: (id: string) => api.get<Episode>('/api/video/episode', { id }),
};
