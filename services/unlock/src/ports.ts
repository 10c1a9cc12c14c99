/** What the unlock service needs from other services, answered by their typed clients. */

import type { CatalogClient, EpisodeOffer, EpisodeTerms, VideoCard } from '@cliffhanger/catalog';

export type { EpisodeOffer, EpisodeTerms, VideoCard };

/** Where an episode's transcode stands; only `ready` plays. */
export type EpisodeStatus = EpisodeOffer['status'];

/** Episodes of one series, asked about at once. */
export interface SeriesTerms {
  videoId: string;
  freeEpisodes: number;
  numbers: number[];
}

/** The catalog, as the unlock routes ask it: an episode's terms (price, free episodes), and series cards. */
export type CatalogTerms = Pick<CatalogClient, 'episodeTerms' | 'cardsOf'>;
