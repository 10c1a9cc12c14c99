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

/** A card the sandbox tokenizer refused (bad number, past expiry); its message is for the user. */
export class CardError extends Error {}

// Card data goes to the provider's tokenizer, never to /api (docs/api.md, "Money").
async function tokenizeCard(card: CardDetails): Promise<CardToken> {
  const response = await fetch('/sandbox/v1/tokens', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
      email: card.email,
    }),
  });
  const answer = (await response.json().catch(() => null)) as (CardToken & { error?: { message?: string } }) | null;
  if (!response.ok || !answer?.id) throw new CardError(answer?.error?.message ?? 'This card could not be used');
  return answer;
}

export const paymentCalls = {
  plans: () => api.get<Plan[]>('/api/plan'),
  createOrder: (planId: string) => api.post<Order>('/api/payment/order', { planId }),
  pay: (orderId: string, paymentToken: string, payer: Payer, idempotencyKey: string) =>
    api.post<PaymentResult>('/api/payment/pay', { orderId, paymentToken, ...payer }, { headers: { 'Idempotency-Key': idempotencyKey } }),
  payments: (page: number, size: number) => api.get<PaymentHistory>('/api/payment', { page, size }),
  cancelSubscription: () => api.post<Subscription>('/api/payment/cancel', {}),
  tokenizeCard,
  unlockEpisode: (episodeId: string) => api.post<{ episodeId: string; balance: number }>('/api/video/unlock', { episodeId }),
  unlocked: (page: number, size: number) => api.get<Page<UnlockedItem>>('/api/video/unlocked', { page, size }),
};
