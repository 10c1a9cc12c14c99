import type { RequestContext } from '@cliffhanger/platform';
import type { OrderRow, PlanRow, SubscriptionRow } from './repository.ts';
import type { OrderStatus, PlanKind, SubscriptionStatus } from './schema.ts';

/** What the payment service answers (docs/api.md "Money and unlocks"). */

/** Integer minor units of an ISO currency. */
export interface Money {
  amount: number;
  currency: string;
}

export interface Plan {
  id: string;
  kind: PlanKind;
  title: string;
  price: Money;
  coins?: number;
  bonusCoins?: number;
  periodDays?: number;
  firstPurchaseOnly?: boolean;
}

/** A plan as an operator sees it: also hidden ones, and where it is listed. */
export interface AdminPlan extends Plan {
  active: boolean;
  position: number;
}

export interface Order {
  id: string;
  planId: string;
  price: Money;
  status: OrderStatus;
  createdAt: string;
}

export interface Subscription {
  planId: string;
  status: SubscriptionStatus;
  renewsAt: string;
  cancelAtPeriodEnd: boolean;
}

/** The answer of a pay call, kept for its replays. */
export interface PayResult {
  orderId: string;
  status: 'succeeded' | 'requires_action' | 'failed';
  message?: string;
  actionUrl?: string;
}

export function planView(row: PlanRow): Plan {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    price: { amount: row.priceAmount, currency: row.currency },
    ...(row.kind === 'coins' ? { coins: row.coins ?? 0, bonusCoins: row.bonusCoins ?? 0 } : { periodDays: row.periodDays ?? 0 }),
    ...(row.firstPurchaseOnly ? { firstPurchaseOnly: true } : {}),
  };
}

export const adminPlanView = (row: PlanRow): AdminPlan => ({ ...planView(row), active: row.active, position: row.position });

export const orderView = (row: OrderRow): Order => ({
  id: row.id,
  planId: row.planId,
  price: { amount: row.priceAmount, currency: row.currency },
  status: row.status,
  createdAt: row.createdAt.toISOString(),
});

export const subscriptionView = (row: SubscriptionRow): Subscription => ({
  planId: row.planId,
  status: row.status,
  renewsAt: row.renewsAt.toISOString(),
  cancelAtPeriodEnd: row.cancelAtPeriodEnd,
});

/** The context later events and calls about an order or subscription carry: the attribution of the request that created it. */
export const contextOf = (row: Pick<OrderRow, 'userId' | 'referrerToken' | 'fbclid' | 'ttclid'>, requestId: string): RequestContext => ({
  requestId,
  userId: row.userId,
  attribution: { referrerToken: row.referrerToken, fbclid: row.fbclid, ttclid: row.ttclid },
});

const declineMessages: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  incorrect_cvc: "Your card's security code is incorrect.",
  invalid_cvc: "Your card's security code is incorrect.",
  expired_card: 'Your card has expired.',
  processing_error: 'An error occurred while processing your card. Please try again.',
  authentication_failed: 'We could not verify your card. Please try again or use another card.',
  authentication_required: 'Your bank asks you to confirm this payment. Please pay again.',
  token_already_used: 'Please enter your card details again.',
  resource_missing: 'Please enter your card details again.',
  canceled: 'The payment was canceled.',
  test_mode_live_card: 'Your card was declined: this is a test site, use a test card.',
};

/** The receipt's word on an offer order settled at the regular rate (its buyer had paid the offer before). */
export const OFFER_PAID_BEFORE = 'The first purchase offer was used already: this payment bought coins at the regular rate.';

/** A decline's stable reason as the buyer reads it. */
export const declineMessage = (reason: string): string =>
  declineMessages[reason] ?? 'Your payment could not be completed. Please try another card.';

/** Minor units in the currency's own digits (cents for USD). */
export function formatMoney({ amount, currency }: Money): string {
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${amount} ${currency}`;
  }
}
