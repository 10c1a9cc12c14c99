import { api, type Page } from './client';
import type { Order, PaymentResult, Plan, Subscription, UnlockedItem } from './types';

export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  email: string;
}

export interface CardToken {
  id: string;
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
}

export interface Payer {
  email: string;
  firstName: string;
  lastName: string;
}

export type PaymentHistory = Page<Order> & { subscription: Subscription | null };

/** How the card form tokenizes (GET /api/payment/config): Stripe Elements with this key, or the sandbox's tokenizer. */
export type PaymentConfig = { provider: 'stripe'; publishableKey: string } | { provider: 'sandbox'; tokenUrl: string };

/**
 * A card the tokenizer refused, or could not be asked about. `code` is Stripe's (invalid_number,
 * incorrect_number, invalid_expiry_month, invalid_expiry_year, invalid_cvc, email_invalid), or
 * `provider_unreachable` when no answer came; `message` is the provider's, in English.
 */
export class CardError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CardError';
  }
}

// Card data goes to the sandbox's tokenizer (at the `tokenUrl` of the payment config), never to /api
// (docs/api.md, "Money"). It answers Stripe's plain JSON, not the envelope, so not through the api client.
async function tokenizeCard(tokenUrl: string, card: CardDetails): Promise<CardToken> {
  let response: Response;
  try {
    response = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
        email: card.email,
      }),
    });
  } catch {
    throw new CardError('provider_unreachable', 'The payment provider could not be reached.');
  }
  const answer = (await response.json().catch(() => null)) as (Partial<CardToken> & { error?: { code?: string; message?: string } }) | null;
  if (!response.ok || typeof answer?.id !== 'string' || !answer.card) {
    throw new CardError(answer?.error?.code ?? 'card_refused', answer?.error?.message ?? 'This card could not be used.');
  }
  return answer as CardToken;
}

export const paymentCalls = {
  plans: () => api.get<Plan[]>('/api/plan'),
  config: () => api.get<PaymentConfig>('/api/payment/config'),
  createOrder: (planId: string) => api.post<Order>('/api/payment/order', { planId }),
  pay: (orderId: string, paymentToken: string, payer: Payer, idempotencyKey: string) =>
    api.post<PaymentResult>('/api/payment/pay', { orderId, paymentToken, ...payer }, { headers: { 'Idempotency-Key': idempotencyKey } }),
  payments: (page: number, size: number) => api.get<PaymentHistory>('/api/payment', { page, size }),
  /** A PayPal payment of the order: the browser goes to `approveUrl` and comes back to /order/result. */
  startPaypal: (orderId: string) => api.post<{ approveUrl: string }>('/api/payment/paypal', { orderId }),
  cancelSubscription: () => api.post<Subscription>('/api/payment/cancel', {}),
  resumeSubscription: () => api.post<Subscription>('/api/payment/resume', {}),
  tokenizeCard,
  unlockEpisode: (episodeId: string) => api.post<{ episodeId: string; balance: number }>('/api/video/unlock', { episodeId }),
  unlocked: (page: number, size: number) => api.get<Page<UnlockedItem>>('/api/video/unlocked', { page, size }),
};
