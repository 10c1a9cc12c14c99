import { appendEvent, type BusEvent, type Executor } from '@cliffhanger/platform';
import { paymentRepository as repo, type SubscriptionRow } from './repository.ts';
import type { Core } from './core.ts';
import type { Settlement } from './settlement.ts';

/** What a merge gave the member (the `purchases.merged` event's payload). */
export interface MergedPurchases {
  guestId: string;
  orders: number;
  /** The member's live subscription afterwards, if any. */
  subscriptionId?: string;
  renewsAt?: string;
  /** With a live VIP on both sides: the one ended, with no further charge. */
  endedSubscriptionId?: string;
  /** Its unused time, added to the kept one's period. */
  addedSeconds: number;
}

/** Renews by itself at its period end: charged again without anyone asking. */
const renewsByItself = (sub: SubscriptionRow) => sub.status === 'active' && !sub.cancelAtPeriodEnd && Boolean(sub.customerId && sub.paymentMethodId);

/**
 * A guest's purchases following it into the account it logs in to (user.logged_in with
 * `mergedGuestId`): its orders, and its subscriptions, of which the member ends with at most one live.
 */
export function createGuestMerges(core: Core, settlement: Settlement) {
  const { bus, now } = core;

  /**
   * Both live: the member keeps one that renews by itself (its own, unless only the guest's does) and
   * the other is canceled at its period end, never charged again; what it had left is added to the
   * kept one's period, so no paid day is lost and the person pays for one VIP from now on.
   */
  async function keepOneLive(tx: Executor, guestSub: SubscriptionRow, memberSub: SubscriptionRow, at: Date) {
    const [kept, other] = renewsByItself(guestSub) && !renewsByItself(memberSub) ? [guestSub, memberSub] : [memberSub, guestSub];
    const addedSeconds = Math.max(0, Math.floor((other.renewsAt.getTime() - at.getTime()) / 1000));
    const endedAt = other.renewsAt > at ? other.renewsAt : at;
    await repo.changeLiveSubscription(tx, other.id, {}, { status: 'canceled', cancelAtPeriodEnd: true, endedAt, nextRetryAt: null, updatedAt: at });
    await repo.changeLiveSubscription(tx, kept.id, {}, { renewsAt: new Date(kept.renewsAt.getTime() + addedSeconds * 1000), updatedAt: at });
    return { kept, ended: other, addedSeconds };
  }

  return {
    /**
     * Applies `user.logged_in` in the consumer's transaction, under both users' subscription locks
     * (taken in user id order): once per event, recorded in `guest_merges`, with its event. Null when
     * there was no guest, or the event was applied before.
     */
    async mergeGuestPurchases(tx: Executor, event: BusEvent): Promise<MergedPurchases | null> {
      const guestId = (event.data as { mergedGuestId?: string | null }).mergedGuestId;
      const memberId = event.userId;
      if (!guestId || !memberId || guestId === memberId) return null;
      const at = now();
      for (const userId of [guestId, memberId].sort()) await repo.lockSubscriptionsOf(tx, userId);
      if (await repo.guestMerge(tx, event.id)) return null;

      const guestSub = await repo.liveSubscriptionOf(tx, guestId);
      const memberSub = await repo.liveSubscriptionOf(tx, memberId);
      const both = guestSub && memberSub ? await keepOneLive(tx, guestSub, memberSub, at) : null;
      const orders = await repo.moveOrders(tx, guestId, memberId, at);
      const subscriptions = await repo.moveSubscriptions(tx, guestId, memberId, at);
      const addedSeconds = both?.addedSeconds ?? 0;
      await repo.insertGuestMerge(tx, {
        eventId: event.id,
        guestId,
        memberId,
        orders,
        subscriptions,
        keptSubscriptionId: both?.kept.id ?? null,
        endedSubscriptionId: both?.ended.id ?? null,
        addedSeconds,
        mergedAt: at,
      });
      if (orders + subscriptions === 0) return null;
      const live = await repo.liveSubscriptionOf(tx, memberId);
      const merged: MergedPurchases = {
        guestId,
        orders,
        ...(live && { subscriptionId: live.id, renewsAt: live.renewsAt.toISOString() }),
        ...(both && { endedSubscriptionId: both.ended.id }),
        addedSeconds,
      };
      const context = { requestId: `event:${event.id}`, userId: memberId, attribution: event.attribution };
      await appendEvent(tx, context, 'purchases.merged', { ...merged }, memberId);
      return merged;
    },

    /**
     * After a merge's commit: VIP in the unlock service as each side's subscriptions are now (the
     * guest's ends). Should the member's call fail, the minute's sweep tells it again: the moved paid
     * orders are owed to the unlock service under the member.
     */
    async afterGuestMerge(guestId: string, memberId: string): Promise<void> {
      bus.nudge();
      await settlement.syncVipQuietly(memberId);
      await settlement.syncVipQuietly(guestId);
    },
  };
}
