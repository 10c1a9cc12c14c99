/** What the payment service needs from other services, answered by their typed clients. */

import type { Credit, OrderCredit, Refund, Standing, UnlockClient, VipState } from '@cliffhanger/unlock';

export type { Credit, OrderCredit, Refund, Standing, VipState };

/**
 * The unlock service's ledger, as payments move it. Every call is idempotent: credits and refunds
 * by order id, VIP as the last state reported, so a repeat after a crash or a race changes nothing.
 */
export type UnlockLedger = Pick<UnlockClient, 'creditOrder' | 'refundOrder' | 'applyVip'> & Partial<Pick<UnlockClient, 'standingOf'>>;
