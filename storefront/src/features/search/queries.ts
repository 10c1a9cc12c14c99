import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { catalogCalls } from '../../api/catalog';
import { catalogQueries, useCatalogList } from '../../api/catalogQueries';

export const PREVIEW_SIZE = 12;

export const searchQueries = {
  preview: (keyword: string) =>
    queryOptions({
      queryKey: ['search', 'preview', keyword],
      queryFn: () => catalogCalls.query({ keyword }, 1, PREVIEW_SIZE),
    }),
};

/** The first results of a keyword while the user types; the previous results stay until new ones arrive. */
export function useSearchPreview(keyword: string) {
  return useQuery({ ...searchQueries.preview(keyword), enabled: keyword.length > 0, placeholderData: keepPreviousData });
}

export function useSearchResults(keyword: string) {
  return useCatalogList({ keyword }, keyword.length > 0);
}

export function usePopularSeries() {
  return useQuery({
    ...catalogQueries.homepage(),
    // Six, so the grid fills whole rows of two or three.
    select: (homepage) => {
      const cards = [...homepage.carousel.items, ...homepage.sections.flatMap((section) => section.items)];
      return [...new Map(cards.map((card) => [card.id, card])).values()].slice(0, 6);
    },
  });
}
