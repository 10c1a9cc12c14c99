import { Conflict, type Database, type RequestContext } from '@cliffhanger/platform';
import { unlockRepository as repo } from './repository.ts';
import { withLockedWallet } from './wallet.ts';

/** What the payment service asks back for a refund or a dispute: the order's coins of its share. */
export interface OrderReversal {
  orderId: string;
  /** Makes it happen once: `refund:<id>` or `dispute:<id>`. */
  reference: string;
  /** Paid and bonus coins of the order this refund takes back. */
  paidCoins: number;
  bonusCoins: number;
}

/** What a reversal did; `reversed` is false for a repeat, which answers what the first did. */
export interface Reversal {
  reversed: boolean;
  coinsTaken: number;
  unlocksRevoked: number;
  balance: number;
}

/** What a won dispute gave back. */
export interface Restoral {
  restored: boolean;
  coinsReturned: number;
  unlocksRestored: number;
  balance: number;
}

/**
 * Refunds and disputes on the wallet (docs/api.md "Refunds"). Coins go back from the wallet that
 * holds them (a guest's who logged in since: the member's), under its lock. When the wallet holds
 * fewer than the refund takes, unlocks paid for since the order was credited are revoked, latest
 * first, each giving its price back, until it holds enough or none is left: nothing stays bought
 * with money returned, and the wallet never goes below zero.
 */
export function createReversals(deps: { database: Database; now: () => Date; bonusLifetimeMs: number }) {
  const { database, now, bonusLifetimeMs } = deps;

  async function holderOfOrder(orderId: string) {
    const purchase = await repo.entryByReference(database.db, `order:${orderId}`);
    // The payment service credits an order before it reverses one: anything else is a repeat later.
    if (!purchase) throw new Conflict(`order ${orderId} has not been credited yet`);
    return { purchase, holder: await repo.holderOf(database.db, purchase.userId, purchase.id) };
  }

  return {
    async reverseOrder(_context: RequestContext, reversal: OrderReversal): Promise<Reversal> {
      const { purchase, holder } = await holderOfOrder(reversal.orderId);
      const at = now();
      return database.transaction((tx) =>
        withLockedWallet(tx, holder, at, async (wallet) => {
          const earlier = await repo.reversalOf(tx, reversal.reference);
          if (earlier) return { reversed: false, coinsTaken: earlier.paidCoins + earlier.bonusCoins, unlocksRevoked: earlier.unlocksRevoked, balance: wallet.balance };
          // A refund the older code applied under the same reference (orders refunded before 0005_refunds).
          const legacy = await repo.entryByReference(tx, reversal.reference);
          if (legacy) return { reversed: false, coinsTaken: -(legacy.paidDelta + legacy.bonusDelta), unlocksRevoked: 0, balance: wallet.balance };
          const wanted = reversal.paidCoins + reversal.bonusCoins;
          await repo.insertReversal(tx, {
            reference: reversal.reference,
            orderId: reversal.orderId,
            userId: holder,
            paidCoins: 0,
            bonusCoins: 0,
            unlocksRevoked: 0,
            state: 'reversed',
            reversedAt: at,
          });
          let revoked = 0;
          while (wallet.balance < wanted) {
            const latest = await repo.latestPaidUnlockSince(tx, holder, purchase.createdAt);
            if (!latest) break;
            await repo.revokeUnlock(tx, reversal.reference, latest, at);
            // Given back as paid coins: the refund takes them at once, but for what it does not need.
            await wallet.credit('revoke', `revoke:${reversal.reference}:${latest.episodeId}`, latest.priceCoins, 0, at);
            revoked += 1;
          }
          const taken = await wallet.takeBack('refund', reversal.reference, purchase.reference, Math.min(wanted, wallet.balance), reversal.bonusCoins);
          await repo.updateReversal(tx, reversal.reference, { paidCoins: taken.paidCoins, bonusCoins: taken.bonusCoins, unlocksRevoked: revoked });
          return { reversed: true, coinsTaken: taken.paidCoins + taken.bonusCoins, unlocksRevoked: revoked, balance: wallet.balance };
        }),
      );
    },

    /**
     * A dispute won: gives back what its reversal took (bonus coins as a lot lapsing when the order's
     * did) and unlocks again what it revoked, earliest first, each paid from the wallet as it was
     * bought, while the wallet can pay (an episode bought again meanwhile costs nothing). Once.
     */
    async restoreReversal(_context: RequestContext, orderId: string, reference: string): Promise<Restoral> {
      const { purchase, holder } = await holderOfOrder(orderId);
      const at = now();
      const lot = await repo.lotGrantedBy(database.db, purchase.reference);
      const bonusExpiresAt = lot?.expiresAt ?? new Date(at.getTime() + bonusLifetimeMs);
      return database.transaction((tx) =>
        withLockedWallet(tx, holder, at, async (wallet) => {
          const reversal = await repo.reversalOf(tx, reference);
          if (!reversal) {
            // Restored before it was ever reversed (two sweeps racing): the late reversal must do nothing.
            await repo.insertReversal(tx, { reference, orderId, userId: holder, paidCoins: 0, bonusCoins: 0, unlocksRevoked: 0, state: 'restored', reversedAt: at, restoredAt: at });
            return { restored: true, coinsReturned: 0, unlocksRestored: 0, balance: wallet.balance };
          }
          if (reversal.state === 'restored') return { restored: false, coinsReturned: 0, unlocksRestored: 0, balance: wallet.balance };
          if (reversal.paidCoins + reversal.bonusCoins > 0) {
            await wallet.credit('restore', `restore:${reference}`, reversal.paidCoins, reversal.bonusCoins, bonusExpiresAt);
          }
          let unlocksRestored = 0;
          for (const revoked of await repo.revokedBy(tx, reference)) {
            if (wallet.balance < revoked.priceCoins) break;
            if (await repo.restoreUnlock(tx, revoked, at)) {
              await wallet.spend('unlock', `restore:${reference}:${revoked.episodeId}`, revoked.priceCoins);
              unlocksRestored += 1;
            }
          }
          await repo.markRestored(tx, reference, at);
          return { restored: true, coinsReturned: reversal.paidCoins + reversal.bonusCoins, unlocksRestored, balance: wallet.balance };
        }),
      );
    },
  };
}
