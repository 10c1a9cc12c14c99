/** What the payment service needs from other services, answered by their typed clients. */

import type { Credit, OrderCredit, OrderReversal, Restoral, Reversal, Standing, UnlockClient, VipState } from '@cliffhanger/unlock';

export type { Credit, OrderCredit, OrderReversal, Restoral, Reversal, Standing, VipState };

/**
 * The unlock service's ledger, as payments move it. Every call is idempotent: credits by order id,
 * reversals by refund or dispute reference, VIP as the last state reported, so a repeat after a crash or a race changes nothing.
 */
export type UnlockLedger = Pick<UnlockClient, 'creditOrder' | 'reverseOrder' | 'restoreReversal' | 'applyVip'> & Partial<Pick<UnlockClient, 'standingOf'>>;
