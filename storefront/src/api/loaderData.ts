import type { QueryClient } from '@tanstack/react-query';
import type { LoaderData as SharedLoaderData } from '../ssr/contract';
import type { RankingSection } from './catalog';
import { catalogQueries } from './catalogQueries';
import type { Page } from './client';
import type { Homepage, Video, VideoCard } from './types';

/** A page's loader data (ssr/contract.ts), in the storefront's types of the API's answers. */
export type LoaderData = SharedLoaderData<Homepage, Page<VideoCard>, Video>;

/** Puts a page's loader data where the queries that read it look: the same keys the pages ask with. */
export function fillQueries(queryClient: QueryClient, data: LoaderData): void {
  if (data.homepage) queryClient.setQueryData(catalogQueries.homepage().queryKey, data.homepage);
  for (const [section, page] of Object.entries(data.rankings ?? {})) {
    // Only the rows every visitor shares: "continue" is each viewer's own, never in loader data.
    if (section !== 'continue') queryClient.setQueryData(catalogQueries.ranking(section as RankingSection).queryKey, page);
  }
  if (data.video) queryClient.setQueryData(catalogQueries.video(data.video.id).queryKey, data.video);
}
