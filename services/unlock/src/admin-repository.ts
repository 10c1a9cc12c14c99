import { and, desc, eq, gt } from 'drizzle-orm';
import type { Executor } from '@cliffhanger/platform';
import { bonusLots, grants, ledger, unlocks } from './schema.ts';

/** The queries behind an operator's look at a wallet, and the reasons of grants (admin.ts). */
export const adminRepository = {
  async insertGrant(tx: Executor, row: typeof grants.$inferInsert): Promise<void> {
    await tx.insert(grants).values(row);
  },

  /** Ledger entries newest first, each with the reason of its grant (null for others); `limit` from `offset`. */
  ledgerPage: (db: Executor, userId: string, offset: number, limit: number) =>
    db
      .select({
        kind: ledger.kind,
        reference: ledger.reference,
        paidDelta: ledger.paidDelta,
        bonusDelta: ledger.bonusDelta,
        paidBalance: ledger.paidBalance,
        bonusBalance: ledger.bonusBalance,
        createdAt: ledger.createdAt,
        reason: grants.reason,
        actor: grants.actor,
      })
      .from(ledger)
      .leftJoin(grants, eq(grants.reference, ledger.reference))
      .where(eq(ledger.userId, userId))
      .orderBy(desc(ledger.id))
      .offset(offset)
      .limit(limit),

  /** Bonus lots with coins left and not lapsed at `at`, lapsing first first. */
  liveLots: (db: Executor, userId: string, at: Date) =>
    db
      .select({ coins: bonusLots.coins, remaining: bonusLots.remaining, expiresAt: bonusLots.expiresAt, grantedBy: bonusLots.grantedBy })
      .from(bonusLots)
      .where(and(eq(bonusLots.userId, userId), gt(bonusLots.remaining, 0), gt(bonusLots.expiresAt, at)))
      .orderBy(bonusLots.expiresAt),

  unlocksOf: (db: Executor, userId: string, limit: number) =>
    db
      .select({ videoId: unlocks.videoId, episodeId: unlocks.episodeId, number: unlocks.episodeNumber, priceCoins: unlocks.priceCoins, unlockedAt: unlocks.unlockedAt })
      .from(unlocks)
      .where(eq(unlocks.userId, userId))
      .orderBy(desc(unlocks.unlockedAt))
      .limit(limit),
};
