import { utmOf, type RequestContext, type UtmKey } from '@cliffhanger/platform';
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
  periodMonths?: number;
  /** When it was retired: no longer listed or sold; live subscriptions keep it. */
  retiredAt: string | null;
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

/** The answer of `POST /api/payment/method`: the subscription after the new card's charge, and how that charge went. */
export interface CardReplaced extends Subscription {
  /** `orderId` is the period's renewal order, which `POST /api/payment/complete` finishes after a 3-D Secure challenge. */
  payment: { orderId: string; status: PayResult['status']; message?: string; clientSecret?: string; actionUrl?: string };
}

/** The answer of a pay call, kept for its replays. */
export interface PayResult {
  orderId: string;
  status: 'succeeded' | 'requires_action' | 'failed';
  message?: string;
  /** With `requires_action`: for the page's `handleNextAction({ clientSecret })`, the 3-D Secure challenge in place. */
  clientSecret?: string;
  /** With `requires_action`: the same challenge as a page to leave for, when the provider has one. */
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

export const adminPlanView = (row: PlanRow): AdminPlan => ({
  ...planView(row),
  active: row.active,
  position: row.position,
  ...(row.periodMonths ? { periodMonths: row.periodMonths } : {}),
  retiredAt: row.retiredAt?.toISOString() ?? null,
});

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
export const contextOf = (
  row: Pick<OrderRow, 'userId' | 'referrerToken' | 'fbclid' | 'ttclid'> & Partial<Pick<OrderRow, UtmKey>>,
  requestId: string,
): RequestContext => ({
  requestId,
  userId: row.userId,
  attribution: { referrerToken: row.referrerToken, fbclid: row.fbclid, ttclid: row.ttclid, ...utmOf(row) },
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

/** A decline's stable reason as the buyer reads it. */
export const declineMessage = (reason: string): string =>
  declineMessages[reason] ?? 'Your payment could not be completed. Please try another card.';
