import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import { api, ApiError } from '../../api/client';
import { paymentCalls, type CardDetails, type CardError, type Payer } from '../../api/payment';
import { paymentQueries } from '../../api/paymentQueries';
import type { PaymentResult } from '../../api/types';
import { userQueries } from '../../api/userQueries';

export type CardPaymentOutcome =
  | { kind: 'succeeded'; orderId: string }
  | { kind: 'requires_action'; orderId: string; actionUrl: string }
  | { kind: 'failed'; orderId: string; reason: string | null }
  /** Accepted but not settled yet (a bank still deciding): /order/result waits for it. */
  | { kind: 'pending'; orderId: string };

/**
 * A card to pay with. `identity` is what the buyer entered as far as this page can tell (the card's
 * details with the sandbox, the count of edits in Stripe's field): the same again is the same card.
 * `tokenize` hands the card to the provider and answers its token; it throws a CardError.
 * `authenticate`, where the provider's script is in the page (Stripe.js's `handleNextAction`), takes a
 * 3-D Secure challenge in place with the payment's client secret and answers null, or the provider's
 * error; without it the page leaves for the challenge's `actionUrl`.
 */
export interface CardEntry {
  identity: unknown;
  tokenize: () => Promise<string>;
  authenticate?: (clientSecret: string) => Promise<CardError | null>;
}

// Here, not in api/payment.ts: everything under api/ is in the first load, and only a card form needs this call.
const completePayment = (orderId: string) => api.post<PaymentResult>('/api/payment/complete', { orderId });

/**
 * 3-D Secure in the page: the challenge, then the server's word on the payment (POST
 * /api/payment/complete), which settles it without waiting for the provider's webhook. That word
 * decides, not the challenge's: a challenge that reported an error while the bank took the money is
 * paid. A challenge that failed throws the provider's CardError, to be shown at the card. Null when
 * the server gave no answer: the webhook settles the payment, and /order/result waits for it.
 */
export async function authenticateInPage(authenticate: NonNullable<CardEntry['authenticate']>, orderId: string, clientSecret: string): Promise<PaymentResult | null> {
  const refused = await authenticate(clientSecret);
  let result: PaymentResult | null;
  try {
    result = await completePayment(orderId);
  } catch (error) {
    if (!refused && !wasUnanswered(error)) throw error;
    result = null;
  }
  if (refused && result?.status !== 'succeeded') throw refused;
  return result;
}

/** The sandbox's card: its details, tokenized at the sandbox's tokenizer. */
export function sandboxCard(tokenUrl: string, card: CardDetails): CardEntry {
  return { identity: card, tokenize: async () => (await paymentCalls.tokenizeCard(tokenUrl, card)).id };
}

interface CardSubmission {
  card: CardEntry;
  payer: Payer;
}

/** One submission's order, token and key, kept while its pay call got no answer, to be sent again unchanged. */
interface UnansweredAttempt {
  submission: string;
  orderId: string;
  paymentToken: string;
  idempotencyKey: string;
}

// No answer, a crash, or the gateway's word that the service behind it gave none: the payment may or
// may not have been made, so only the very same call (same key, same body) may be sent again.
const UNANSWERED_STATUSES = new Set([0, 408, 500, 502, 503, 504]);

export function wasUnanswered(error: unknown): boolean {
  return error instanceof ApiError && UNANSWERED_STATUSES.has(error.httpStatus);
}

export function newIdempotencyKey(): string {
  return typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * The payments of /order/easy. The order is made on the first attempt (or comes with the link) and
 * serves every attempt until one settles. Each attempt pays with a fresh Idempotency-Key, except a
 * repeat of a submission whose pay call got no answer: that one sends the same token under the same
 * key, so the payment service answers the first outcome instead of charging again.
 */
export function useCheckout(planId: string | null, linkedOrderId: string | null) {
  const queryClient = useQueryClient();
  const orderId = useRef<string | null>(linkedOrderId);
  const unanswered = useRef<UnansweredAttempt | null>(null);

  const orderToPay = async (): Promise<string> => {
    if (orderId.current) return orderId.current;
    if (!planId) throw new Error('A payment needs a plan or an order');
    orderId.current = (await paymentCalls.createOrder(planId)).id;
    return orderId.current;
  };

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: userQueries.current().queryKey });
    void queryClient.invalidateQueries({ queryKey: paymentQueries.payments().queryKey });
  };

  const payByCard = useMutation({
    mutationFn: async ({ card, payer }: CardSubmission): Promise<CardPaymentOutcome> => {
      const submission = JSON.stringify([card.identity, payer]);
      const repeat = unanswered.current?.submission === submission ? unanswered.current : null;
      unanswered.current = null;
      const attempt: UnansweredAttempt = repeat ?? {
        submission,
        orderId: await orderToPay(),
        // Card data goes to the provider's tokenizer only; /api sees the token.
        paymentToken: await card.tokenize(),
        idempotencyKey: newIdempotencyKey(),
      };
      let result;
      try {
        result = await paymentCalls.pay(attempt.orderId, attempt.paymentToken, payer, attempt.idempotencyKey);
      } catch (error) {
        if (wasUnanswered(error)) unanswered.current = attempt;
        throw error;
      }
      const settledOrder = attempt.orderId;
      if (result.status === 'requires_action' && result.clientSecret && card.authenticate) {
        const finished = await authenticateInPage(card.authenticate, settledOrder, result.clientSecret);
        if (!finished) return { kind: 'pending', orderId: settledOrder };
        result = finished;
      }
      if (result.status === 'succeeded' || result.status === 'failed') orderId.current = null;
      if (result.status === 'succeeded') return { kind: 'succeeded', orderId: settledOrder };
      if (result.status === 'failed') return { kind: 'failed', orderId: settledOrder, reason: result.message ?? null };
      if (result.status === 'requires_action' && result.actionUrl) {
        return { kind: 'requires_action', orderId: settledOrder, actionUrl: result.actionUrl };
      }
      return { kind: 'pending', orderId: settledOrder };
    },
    onSettled: refresh,
  });

  const payByPaypal = useMutation({
    mutationFn: async () => {
      const id = await orderToPay();
      return { orderId: id, approveUrl: (await paymentCalls.startPaypal(id)).approveUrl };
    },
  });

  return { payByCard, payByPaypal };
}
