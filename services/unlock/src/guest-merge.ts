import { appendEvent, Conflict, type BusEvent, type Database, type Executor, type RequestContext } from '@cliffhanger/platform';
import { unlockRepository as repo, type LedgerEntry } from './repository.ts';
import { withLockedWallet } from './wallet.ts';

interface WalletMerge {
  guestId: string;
  memberId: string;
  /** Makes the merge happen once: `merge:<event id>`, or `merge:<credit reference>` for a credit carried over. */
  reference: string;
}

/**
 * Moves everything a guest's wallet holds into a member's, under both wallet locks (taken in user id
 * order, so two merges never deadlock): coins through one entry in each ledger, the bonus lots whole,
 * the unlocks and check-in days the member lacks. Once per reference: null when it was merged before.
 */
async function mergeWallets(tx: Executor, context: RequestContext, merge: WalletMerge, at: Date) {
  const { guestId, memberId, reference } = merge;
  const [first, second] = [guestId, memberId].sort();
  return withLockedWallet(tx, first!, at, (firstWallet) =>
    withLockedWallet(tx, second!, at, async (secondWallet) => {
      if (await repo.mergeByReference(tx, reference)) return null;
      const [guest, member] = firstWallet.userId === guestId ? [firstWallet, secondWallet] : [secondWallet, firstWallet];
      const coins = await guest.handOver(member, reference);
      const unlocks = await repo.handOverUnlocks(tx, guestId, memberId);
      const checkins = await repo.handOverCheckins(tx, guestId, memberId);
      const moved = { coins: coins.paidCoins, bonusCoins: coins.bonusCoins, unlocks, checkins };
      // Recorded even when nothing moved: it says where whatever the guest was credited before now went.
      await repo.insertMerge(tx, { reference, guestId, memberId, lastEntryId: await repo.lastEntryId(tx, guestId), ...moved, mergedAt: at });
      // The wallet.merged payload (proto/): what the member received, its balance afterwards, and the
      // merge's reference, which names its ledger entries (one guest can merge into one member twice).
      const merged = { guestId, ...moved, balance: member.balance, reference };
      if (Object.values(moved).some((count) => count > 0)) await appendEvent(tx, context, 'wallet.merged', merged, memberId);
      return merged;
    }),
  );
}

/** A guest's wallet following it into the account it logs in to (user.logged_in with `mergedGuestId`). */
export function createGuestMerges(deps: { database: Database; now: () => Date }) {
  const { database, now } = deps;

  return {
    /**
     * Applies `user.logged_in` in the consumer's transaction: the guest's wallet moves into the
     * member's, once per event (the ledger's references and the merge's own make a replay change nothing).
     */
    async mergeGuestWallet(tx: Executor, event: BusEvent) {
      const guestId = (event.data as { mergedGuestId?: string | null }).mergedGuestId;
      const memberId = event.userId;
      if (!guestId || !memberId || guestId === memberId) return null;
      const context = { requestId: `event:${event.id}`, userId: memberId, attribution: event.attribution };
      return mergeWallets(tx, context, { guestId, memberId, reference: `merge:${event.id}` }, now());
    },

    /**
     * A credit asked for a member that its reference gave a guest first. When that guest merged into
     * this member, the coins are the member's: carried by the merge already, or (credited after it,
     * as a payment settling while its buyer logged in) carried over now. Else they are another user's.
     */
    async creditOfMergedGuest(context: RequestContext, earlier: LedgerEntry, memberId: string): Promise<void> {
      const guestId = earlier.userId;
      await database.transaction(async (tx) => {
        if ((await repo.holderOf(tx, guestId, earlier.id)) === memberId) return;
        if (!(await repo.hasMergedInto(tx, guestId, memberId))) throw new Conflict(`${earlier.reference} was credited to another user`);
        await mergeWallets(tx, context, { guestId, memberId, reference: `merge:${earlier.reference}` }, now());
      });
    },
  };
}

export type GuestMerges = ReturnType<typeof createGuestMerges>;
