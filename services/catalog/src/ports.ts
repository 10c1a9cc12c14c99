/** What the catalog needs from other services, answered by their typed clients. */

/** A viewer's own relation to a series, owned by the user service. */
export interface ViewerLists {
  /** Whether the series is in the viewer's list, and where they stopped in it: one question, one call. */
  viewerOf(userId: string, videoId: string): Promise<{ favorited: boolean; resume: { episodeId: string; positionSeconds: number } | null }>;
}

/** What an entitlement decision needs to know about an episode. */
export interface WatchableEpisode {
  id: string;
  videoId: string;
  number: number;
  /** The series' count of free episodes: numbers up to it are free for everyone. */
  freeEpisodes: number;
}

/**
 * Who may watch what: the one place that decides. The unlock and subscription services answer it
 * later (coins, unlocks, VIP); the catalog only asks.
 */
export interface EntitlementPolicy {
  mayWatch(userId: string | null, episode: WatchableEpisode): Promise<boolean>;
  /** The caller's coins, shown beside a locked episode's price. */
  balanceOf(userId: string | null): Promise<number>;
}

/** Until unlocks and subscriptions exist, the free episodes are all anyone may watch. */
export const freeEpisodesOnly: EntitlementPolicy = {
  mayWatch: async (_userId, episode) => episode.number <= episode.freeEpisodes,
  balanceOf: async () => 0,
};

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
