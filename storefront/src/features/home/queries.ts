import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { catalogCalls, type CatalogFilter } from '../../api/catalog';
import { PAGE_SIZE, pagedQuery } from '../../lib/paging';

export function useTags() {
  return useQuery({ queryKey: ['tags'], queryFn: catalogCalls.tags, staleTime: 5 * 60_000 });
}

export function useHomepage() {
  return useQuery({ queryKey: ['homepage'], queryFn: catalogCalls.homepage, staleTime: 60_000 });
}

/** Catalog cards by keyword, tag or section, page after page. */
export function useCatalogList(filter: CatalogFilter, enabled = true) {
  return useInfiniteQuery({
    queryKey: ['catalog', filter],
    queryFn: ({ pageParam }) => catalogCalls.query(filter, pageParam, PAGE_SIZE),
    enabled,
    ...pagedQuery,
  });
}
