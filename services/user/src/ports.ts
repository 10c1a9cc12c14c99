/** What the user service needs from other services, answered by their typed clients. */

import type { VideoCard } from '@cliffhanger/catalog';

export type { VideoCard };

export interface CatalogDirectory {
  /** Cards of the videos that exist, by id; unknown ids are left out. */
  cardsOf(videoIds: string[]): Promise<Map<string, VideoCard>>;
  /** The series and number of an episode, or null when there is no such episode. */
  episodeRef(episodeId: string): Promise<{ videoId: string; number: number } | null>;
}

export interface Vip {
  planId: string;
  renewsAt: string;
  cancelAtPeriodEnd: boolean;
}

/** Coins and VIP of a user, owned by the unlock and payment services. */
export interface AccountStanding {
  standingOf(userId: string): Promise<{ coins: number; vip: Vip | null }>;
}

/** Until the unlock and payment services exist, nobody has coins or a subscription. */
export const noStanding: AccountStanding = {
  standingOf: async () => ({ coins: 0, vip: null }),
};
