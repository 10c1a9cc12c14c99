import type { QueryClient } from '@tanstack/react-query';
import type { RankingSection } from './catalog';
import { catalogQueries } from './catalogQueries';
import type { Page } from './client';
import type { Homepage, Video, VideoCard } from './types';

/**
 * What the gateway already holds about a page when it serves it, the same for every visitor (never
 * one viewer's own): it sends them with the page (`<script id="page-data">`) and draws the page
 * from them (entry-server.tsx), and the browser's first render reads them instead of asking.
 */
export interface PageFacts {
  homepage?: Homepage;
  /** The home page's shared ranking rows, as `catalogQueries.ranking` asks for them. */
  rankings?: Partial<Record<RankingSection, Page<VideoCard>>>;
  /** A series page's series, as a visitor who has unlocked nothing sees it. */
  video?: Video;
}

/** Puts a page's facts where the queries that read them look: the same keys the pages ask with. */
export function fillQueries(queryClient: QueryClient, facts: PageFacts): void {
  if (facts.homepage) queryClient.setQueryData(catalogQueries.homepage().queryKey, facts.homepage);
  for (const [section, page] of Object.entries(facts.rankings ?? {})) {
    // "continue" is each viewer's own: never taken from a page every visitor gets.
    if (section !== 'continue') queryClient.setQueryData(catalogQueries.ranking(section as RankingSection).queryKey, page);
  }
  if (facts.video) queryClient.setQueryData(catalogQueries.video(facts.video.id).queryKey, facts.video);
}
