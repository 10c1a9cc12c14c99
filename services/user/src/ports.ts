/** What the user service needs from other services, answered by their typed clients. */

import type { CatalogClient, VideoCard } from '@cliffhanger/catalog';
import type { AdminCall } from '@cliffhanger/platform';

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

/** The unlock service's side of an operator's look at a user: the wallet, and coins granted with a reason. */
export interface OperatorWallets {
  walletOf(userId: string, page: number, size: number): Promise<object>;
  grantCoins(grant: { userId: string; coins: number; reason: string }, by: AdminCall): Promise<{ reference: string; coins: number; balance: number }>;
}

/** The payment service's side of an operator's grant: VIP days with a reason, audited there. */
export interface OperatorVip {
  grantVipDays(
    grant: { userId: string; days: number; reason: string },
    by: AdminCall,
  ): Promise<{ days: number; subscription: { planId: string; status: string; renewsAt: string; cancelAtPeriodEnd: boolean } }>;
}
