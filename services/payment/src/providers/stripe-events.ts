import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { declineReason, WEBHOOK_TOLERANCE_SECONDS, WebhookSignatureError, type Money, type ProviderEvent, type SavedMethod } from './provider.ts';

/**
 * Stripe's webhook format, spoken by both adapters: Stripe sends it, and the sandbox sends the same
 * shape signed the same way, so the payment service has one webhook route whichever runs.
 */

/** The part of a PaymentIntent our mapping reads (the sandbox's events carry exactly these). */
export interface IntentSnapshot {
  id: string;
  metadata?: Record<string, string> | null;
  customer?: string | { id: string } | null;
  payment_method?: string | { id: string } | null;
  setup_future_usage?: string | null;
  last_payment_error?: { code?: string | null; decline_code?: string | null } | null;
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === 'string' ? value : (value?.id ?? null);

/** The card a succeeded intent kept for off-session use: only when it was set up for it. */
export function savedMethodOf(intent: IntentSnapshot): SavedMethod | null {
  const customerId = idOf(intent.customer);
  const paymentMethodId = idOf(intent.payment_method);
  return intent.setup_future_usage === 'off_session' && customerId && paymentMethodId ? { customerId, paymentMethodId } : null;
}

/** The `Stripe-Signature` header for `body`: `t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, as Stripe signs. */
export function signWebhook(body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Verifies with Stripe's own code (constant-time compare, 300 s tolerance), then maps the event. */
export function parseStripeWebhook(rawBody: Buffer, signature: string | undefined, secret: string): ProviderEvent | null {
  if (!signature) throw new WebhookSignatureError('The Stripe-Signature header is missing');
  let event: { id: string; type: string; data?: { object?: unknown } };
  try {
    event = Stripe.webhooks.constructEvent(rawBody, signature, secret, WEBHOOK_TOLERANCE_SECONDS) as never;
  } catch (error) {
    throw new WebhookSignatureError(error instanceof Error ? error.message.split('\n')[0] : 'Invalid webhook');
  }
  const object = event.data?.object as Record<string, unknown> | undefined;
  if (!object) return null;
  if (event.type === 'payment_intent.succeeded' || event.type === 'payment_intent.payment_failed') {
    const intent = object as unknown as IntentSnapshot;
    const orderId = intent.metadata?.orderId;
    if (!intent.id || !orderId) return null;
    return event.type === 'payment_intent.succeeded'
      ? { id: event.id, type: 'payment.succeeded', paymentId: intent.id, orderId, savedMethod: savedMethodOf(intent) }
      : { id: event.id, type: 'payment.failed', paymentId: intent.id, orderId, reason: declineReason(intent.last_payment_error) };
  }
  // Charges and disputes name their PaymentIntent: the payment our order keeps.
  const paymentId = idOf(object.payment_intent as string | { id: string } | null | undefined);
  if (!paymentId) return null;
  const money = (amount: unknown): Money => ({ amount: Number(amount), currency: String(object.currency ?? '').toUpperCase() });
  if (event.type === 'charge.refunded') return { id: event.id, type: 'payment.refunded', paymentId, amountRefunded: money(object.amount_refunded) };
  const disputeId = String(object.id ?? '');
  if (!disputeId) return null;
  if (event.type === 'charge.dispute.created') {
    return { id: event.id, type: 'payment.disputed', paymentId, disputeId, amount: money(object.amount), reason: String(object.reason ?? 'general') };
  }
  if (event.type === 'charge.dispute.closed') {
    const status = String(object.status ?? '');
    return { id: event.id, type: 'payment.dispute_closed', paymentId, disputeId, won: status === 'won' || status === 'warning_closed', status };
  }
  return null;
}
