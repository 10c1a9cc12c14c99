import type { EventBus } from '@cliffhanger/platform';
import type { PaymentService } from './service.ts';

/**
 * The payment service's consumers. A refund (`order.refunded`, from an operator, the provider or a
 * lost dispute) is mailed to the buyer after its mark commits, once per refund id (mails.ts).
 * A guest who logs in to an account brings its purchases along
 * (`user.logged_in` with `mergedGuestId`). Applied once per event id, in the transaction of its mark;
 * the unlock service hears of the VIP change after the commit.
 */
export function subscribePaymentConsumers(bus: EventBus, payments: PaymentService): void {
  bus.subscribe('payment.guest-merge', ['user.logged_in'], async (event, tx, effects) => {
    const merged = await payments.mergeGuestPurchases(tx, event);
    if (merged) effects.afterCommit(() => payments.afterGuestMerge(merged.guestId, event.userId!));
  });
  bus.subscribe('payment.refund-mail', ['order.refunded'], async (event, _tx, effects) => {
    const { orderId, refundId, amount } = event.data as { orderId: string; refundId: string; amount: { amount: number; currency: string } };
    effects.afterCommit(() => payments.mailRefund(orderId, refundId, amount));
  });
}
