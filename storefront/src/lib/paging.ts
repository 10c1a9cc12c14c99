import type { Page } from '../api/client';

export const PAGE_SIZE = 20;

/** The infinite-query options every paged list shares: pages from 1 until hasMore is false. */
export const pagedQuery = {
  initialPageParam: 1,
  getNextPageParam: <T,>(last: Page<T>) => (last.hasMore ? last.page + 1 : undefined),
};
