import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { PAGE_SIZE, pagedQuery } from '../lib/paging';
import { RANKING_ROW_SIZE } from '../ssr/contract';
import { catalogCalls, type CatalogFilter, type RankingSection } from './catalog';

/** Feed items fetched at a time: a few swipes ahead, and little wasted when the viewer leaves. */
const FEED_PAGE_SIZE = 10;

const VIDEOS = ['video'] as const;

/** The catalog's queries that more than one feature (or the app shell) reads or refreshes. */
export const catalogQueries = {
  tags: () => queryOptions({ queryKey: ['tags'], queryFn: catalogCalls.tags, staleTime: 5 * 60_000 }),
  homepage: () => queryOptions({ queryKey: ['homepage'], queryFn: catalogCalls.homepage, staleTime: 60_000 }),
  /** Catalog cards by keyword, tag or section, page after page. */
  list: (filter: CatalogFilter) =>
    infiniteQueryOptions({
      queryKey: ['catalog', filter],
      queryFn: ({ pageParam }) => catalogCalls.query(filter, pageParam, PAGE_SIZE),
      ...pagedQuery,
    }),
  /** The first series of a ranking, for its home page row; "continue" moves as the viewer watches. */
  ranking: (section: RankingSection) =>
    queryOptions({
      queryKey: ['catalog', { sectionId: section }, 'row'],
      queryFn: () => catalogCalls.query({ sectionId: section }, 1, RANKING_ROW_SIZE),
      staleTime: section === 'continue' ? 0 : 60_000,
    }),
  /** The "For You" feed, page after page; its playback grants expire, so it is read afresh on every visit. */
  feed: () =>
    infiniteQueryOptions({
      queryKey: ['feed'],
      queryFn: ({ pageParam }) => catalogCalls.feed(pageParam, FEED_PAGE_SIZE),
      ...pagedQuery,
      staleTime: 0,
      gcTime: 0,
    }),
  /** Every series in the cache, for changes (an unlock) that can touch any of them. */
  videos: () => VIDEOS,
  // Always refreshed on open: it carries this viewer's locks and resume point, which change as they watch.
  video: (id: string) => queryOptions({ queryKey: [...VIDEOS, id], queryFn: () => catalogCalls.video(id), staleTime: 0 }),
};

export function useTags() {
  return useQuery(catalogQueries.tags());
}

export function useHomepage() {
  return useQuery(catalogQueries.homepage());
}

export function useCatalogList(filter: CatalogFilter, enabled = true) {
  return useInfiniteQuery({ ...catalogQueries.list(filter), enabled });
}
