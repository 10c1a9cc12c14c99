import type { Executor } from '@cliffhanger/platform';
import { unlockRepository as repo } from './repository.ts';
import type { LedgerKind } from './schema.ts';

/**
 * One user's wallet, locked for the rest of a transaction. Every change is a ledger entry, written
 * with the wallet's new balances in the same statement: coins and the entry that moves them commit
 * together or not at all.
 */
export interface LockedWallet {
  readonly userId: string;
  readonly paidCoins: number;
  /** Bonus coins still spendable: lapsed lots have already left through expiry entries. */
  readonly bonusCoins: number;
  /** What the user may spend: paid and bonus coins. */
  readonly balance: number;
  /** Bonus coins of lapsed lots that left the wallet as it was opened. */
  readonly expiredCoins: number;
  /** When the user's VIP ends (null: never had one): read under the same lock. */
  readonly vipUntil: Date | null;
  /** Adds paid coins and a lot of `bonusCoins` lapsing at `bonusExpiresAt`, under one entry. */
  credit(kind: LedgerKind, reference: string, paidCoins: number, bonusCoins: number, bonusExpiresAt: Date): Promise<void>;
  /** Takes `coins` from the lots that lapse first, then from paid coins; the caller checked the balance. */
  spend(kind: LedgerKind, reference: string, coins: number): Promise<void>;
  /** Takes back what is left of the lot `grantedBy` credited and up to `paidCoins` paid coins: never more than there is. */
  clawBack(kind: LedgerKind, reference: string, grantedBy: string, paidCoins: number): Promise<{ paidCoins: number; bonusCoins: number }>;
  /**
   * Takes `coins` back for a refund, the caller having checked the balance: first up to `lotCoins`
   * of what is left of the lot `grantedBy` credited, then paid coins, then other bonus coins (those
   * lapsing first), under one entry.
   */
  takeBack(kind: LedgerKind, reference: string, grantedBy: string, coins: number, lotCoins: number): Promise<{ paidCoins: number; bonusCoins: number }>;
  /**
   * Hands every coin to `to`, a wallet locked in the same transaction: the paid coins, and the bonus
   * lots whole, each keeping its expiry. One entry leaves this ledger (`<reference>:out`), one
   * arrives in the other (`<reference>:in`); nothing is written when there is nothing to hand over.
   */
  handOver(to: LockedWallet, reference: string): Promise<{ paidCoins: number; bonusCoins: number }>;
}

type Post = (kind: LedgerKind, reference: string, paidDelta: number, bonusDelta: number) => Promise<void>;

/** Each open wallet's own way to write an entry: a hand-over writes one in the receiving wallet too. */
const posts = new WeakMap<LockedWallet, Post>();

/** What locking a wallet answers: its balances and VIP, and whatever else the lock did in its statement. */
type LockedRow = Awaited<ReturnType<typeof repo.lockWallet>>;

/**
 * Locks `userId`'s wallet (creating it empty) with `lock`, first expires its lapsed bonus lots, then
 * runs `work`. Locking the wallet row before any lot is the one lock order, so changes never deadlock.
 */
export async function withLockedWallet<T, R extends LockedRow = LockedRow>(
  tx: Executor,
  userId: string,
  at: Date,
  work: (wallet: LockedWallet, row: R) => Promise<T>,
  lock: (tx: Executor, userId: string) => Promise<R> = repo.lockWallet as never,
): Promise<T> {
  const row = await lock(tx, userId);
  let paid = row.paidCoins;
  let bonus = row.bonusCoins;

  async function post(kind: LedgerKind, reference: string, paidDelta: number, bonusDelta: number): Promise<void> {
    paid += paidDelta;
    bonus += bonusDelta;
    await repo.appendEntry(tx, { userId, kind, reference, paidDelta, bonusDelta, paidBalance: paid, bonusBalance: bonus, createdAt: at });
  }

  // The wallet's bonus_coins is what its lots hold: with none, there is no lot to expire or spend.
  let expiredCoins = 0;
  for (const lot of row.bonusCoins > 0 ? await repo.lapsedLots(tx, userId, at) : []) {
    await repo.setLotRemaining(tx, lot.id, 0);
    await post('expiry', `expiry:${lot.id}`, 0, -lot.remaining);
    expiredCoins += lot.remaining;
  }

  const wallet: LockedWallet = {
    userId,
    get paidCoins() {
      return paid;
    },
    get bonusCoins() {
      return bonus;
    },
    get balance() {
      return paid + bonus;
    },
    expiredCoins,
    vipUntil: row.vipUntil,

    async credit(kind, reference, paidCoins, bonusCoins, bonusExpiresAt) {
      await post(kind, reference, paidCoins, bonusCoins);
      if (bonusCoins > 0) await repo.insertLot(tx, { userId, grantedBy: reference, coins: bonusCoins, remaining: bonusCoins, expiresAt: bonusExpiresAt });
    },

    async spend(kind, reference, coins) {
      let fromBonus = 0;
      for (const lot of bonus > 0 ? await repo.spendableLots(tx, userId, at) : []) {
        if (fromBonus === coins) break;
        const taken = Math.min(lot.remaining, coins - fromBonus);
        await repo.setLotRemaining(tx, lot.id, lot.remaining - taken);
        fromBonus += taken;
      }
      // A shortfall makes paid_balance negative, which the ledger's CHECK refuses: the transaction fails whole.
      await post(kind, reference, -(coins - fromBonus), -fromBonus);
    },

    async clawBack(kind, reference, grantedBy, paidCoins) {
      // A lot that moved to another wallet with a merge is that wallet's to give back.
      const found = await repo.lotGrantedBy(tx, grantedBy);
      const lot = found?.userId === userId ? found : null;
      const bonusCoins = lot?.remaining ?? 0;
      if (lot && bonusCoins > 0) await repo.setLotRemaining(tx, lot.id, 0);
      const taken = { paidCoins: Math.min(paidCoins, paid), bonusCoins };
      await post(kind, reference, -taken.paidCoins, -taken.bonusCoins);
      return taken;
    },

    async takeBack(kind, reference, grantedBy, coins, lotCoins) {
      const found = await repo.lotGrantedBy(tx, grantedBy);
      const lot = found?.userId === userId && found.expiresAt > at ? found : null;
      const fromLot = Math.min(lot?.remaining ?? 0, lotCoins, coins);
      if (lot && fromLot > 0) await repo.setLotRemaining(tx, lot.id, lot.remaining - fromLot);
      const fromPaid = Math.min(paid, coins - fromLot);
      let fromBonus = fromLot;
      let rest = coins - fromLot - fromPaid;
      for (const other of rest > 0 ? await repo.spendableLots(tx, userId, at) : []) {
        if (rest === 0) break;
        const taken = Math.min(other.remaining, rest);
        await repo.setLotRemaining(tx, other.id, other.remaining - taken);
        fromBonus += taken;
        rest -= taken;
      }
      await post(kind, reference, -fromPaid, -fromBonus);
      return { paidCoins: fromPaid, bonusCoins: fromBonus };
    },

    async handOver(to, reference) {
      const moved = { paidCoins: paid, bonusCoins: bonus };
      if (moved.paidCoins + moved.bonusCoins === 0) return moved;
      // Lapsed lots were written off as the wallet was opened: every lot with coins left is spendable.
      if (moved.bonusCoins > 0) await repo.moveLots(tx, userId, to.userId);
      await post('merge_out', `${reference}:out`, -moved.paidCoins, -moved.bonusCoins);
      await posts.get(to)!('merge_in', `${reference}:in`, moved.paidCoins, moved.bonusCoins);
      return moved;
    },
  };
  posts.set(wallet, post);

  return work(wallet, row);
}
