/** What the user service needs from other services, answered by their typed clients. */

import type { CatalogClient, VideoCard } from '@cliffhanger/catalog';

export type { CatalogClient, VideoCard };

export interface Vip {
  planId: string;
  renewsAt: string;
  cancelAtPeriodEnd: boolean;
}

/** Coins and VIP of a user, kept by the unlock service (VIP as the payment service reports it). */
export interface AccountStanding {
  standingOf(userId: string): Promise<{ coins: number; bonusCoins: number; vip: Vip | null }>;
}
