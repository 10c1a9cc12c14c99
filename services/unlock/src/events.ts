import type { EventBus } from '@cliffhanger/platform';
import type { UnlockService } from './service.ts';

/**
 * The unlock service's consumer: a guest who logs in to an account brings its wallet along
 * (`user.logged_in` with `mergedGuestId`). Applied once per event id, in the transaction of its mark.
 */
export function subscribeUnlockConsumers(bus: EventBus, unlocks: UnlockService): void {
  bus.subscribe('unlock.guest-merge', ['user.logged_in'], async (event, tx, effects) => {
    // Written in the bus's transaction, not the service's: the kept standings are told once it commits.
    effects.afterCommit(unlocks.standingsChanged);
    if (await unlocks.mergeGuestWallet(tx, event)) effects.afterCommit(() => bus.nudge());
  });
}
