import type { EventBus } from '@cliffhanger/platform';
import type { PaymentService } from './service.ts';

/**
 * The payment service's consumer: a guest who logs in to an account brings its purchases along
 * (`user.logged_in` with `mergedGuestId`). Applied once per event id, in the transaction of its mark;
 * the unlock service hears of the VIP change after the commit.
 */
export function subscribePaymentConsumers(bus: EventBus, payments: PaymentService): void {
  bus.subscribe('payment.guest-merge', ['user.logged_in'], async (event, tx, effects) => {
    const merged = await payments.mergeGuestPurchases(tx, event);
    if (merged) effects.afterCommit(() => payments.afterGuestMerge(merged.guestId, event.userId!));
  });
}
