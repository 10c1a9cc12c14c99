import type { EpisodeStatus } from './schema.ts';

/** What the catalog needs from other services, answered by their typed clients, and the terms it answers them with. */

/** An episode's terms of sale, as the catalog answers the unlock service. */
export interface EpisodeTerms {
  episodeId: string;
  videoId: string;
  number: number;
  freeEpisodes: number;
  priceCoins: number;
}

/** An episode's terms as it is offered for sale: only a `ready` one plays, so only a ready one may be sold. */
export interface EpisodeOffer extends EpisodeTerms {
  status: EpisodeStatus;
}

/** A viewer's own relation to a series, owned by the user service. */
export interface ViewerLists {
  /** Whether the series is in the viewer's list, and where they stopped in it: one question, one call. */
  viewerOf(userId: string, videoId: string): Promise<{ favorited: boolean; resume: { episodeId: string; positionSeconds: number } | null }>;
}

/** Who may watch what: the unlock service decides (free, unlocked, or VIP); the catalog only asks. */
export interface EntitlementPolicy {
  mayWatch(userId: string | null, episode: EpisodeTerms): Promise<boolean>;
  /** The same for the episodes of one series at once: which of `numbers` the viewer may watch. */
  watchableNumbers(userId: string | null, series: { videoId: string; freeEpisodes: number; numbers: number[] }): Promise<number[]>;
  /** The caller's coins, shown beside a locked episode's price. */
  standingOf(userId: string): Promise<{ coins: number }>;
}

export interface TranscodeRequest {
  episodeId: string;
  sourceKey: string;
  uploadId: string;
}

export interface TranscodeProgress {
  state: 'waiting' | 'active' | 'completed' | 'dead';
  percent: number;
  attempts: number;
  lastError: string | null;
}

/** The transcoder's job queue, as the catalog sees it. */
export interface Transcoder {
  /** Queues the transcode of an upload; asking twice for one upload queues it once. Lower priority runs first. */
  request(upload: TranscodeRequest, priority: number): Promise<void>;
  progressOf(upload: Omit<TranscodeRequest, 'sourceKey'>): Promise<TranscodeProgress | null>;
}
