/**
 * The payment-provider port: what the payment service needs from a card processor, and nothing of
 * how one works. Two adapters implement it — the sandbox (embedded mode and tests: Stripe's test
 * cards, state in our database) and Stripe — and one contract suite (test/payment.contract.ts)
 * runs on both. Card data never passes through it: the browser tokenizes, we see only the token.
 */

/** Integer minor units (cents for USD) of an ISO 4217 currency. */
export interface Money {
  amount: number;
  currency: string;
}

/** A card the provider keeps for off-session charges (renewals): references, never card data. */
export interface SavedMethod {
  customerId: string;
  paymentMethodId: string;
}

/**
 * Where a charge stands.
 * - `succeeded`: the money is taken. `savedMethod` is the card kept for renewals when the charge asked
 *   to save it (`saveForLater`), null otherwise (and always for `chargeSaved`).
 * - `requires_action`: the customer must authenticate (3-D Secure) or approve at `actionUrl`; the
 *   browser comes back to the charge's `returnUrl`, the outcome arrives as a webhook and via `retrieve`.
 * - `processing`: no outcome yet and nothing for the customer to do (Stripe's `processing`); the
 *   webhook settles it. The sandbox never answers it.
 * - `failed`: nothing is taken. `reason` is a stable code (see `declineReason`); `hardDecline` says
 *   the same card will not pass later (renewals stop and ask for another card), a soft decline
 *   (insufficient_funds, processing_error) may. `paymentId` is null when the provider refused before
 *   a payment existed (an unusable token).
 */
export type ChargeResult =
  | { status: 'succeeded'; paymentId: string; savedMethod: SavedMethod | null }
  | { status: 'requires_action'; paymentId: string; actionUrl: string }
  | { status: 'processing'; paymentId: string }
  | { status: 'failed'; paymentId: string | null; reason: string; hardDecline: boolean };

/** A verified provider notification about one of our payments (its metadata carries our order id). */
export interface ProviderEvent {
  /** The provider's event id: the same notification delivered twice keeps it, so apply each id once. */
  id: string;
  type: 'payment.succeeded' | 'payment.failed';
  paymentId: string;
  orderId: string;
  /** On `payment.failed`: the decline code, as in `ChargeResult`. */
  reason?: string;
  /** On `payment.succeeded`: the card kept for renewals, when the charge asked to save it. */
  savedMethod?: SavedMethod | null;
}

export interface ChargeInput {
  orderId: string;
  amount: Money;
  /** The single-use token the browser got from the provider's tokenizer. */
  paymentToken: string;
  customer: { userId: string; email: string; name: string };
  /** The same key always answers the first charge's result and never charges twice. */
  idempotencyKey: string;
  /** Keep the card for off-session renewals (`chargeSaved`) once this charge succeeds. */
  saveForLater: boolean;
  /** Where the browser returns after `requires_action`. */
  returnUrl: string;
}

export interface SavedChargeInput {
  orderId: string;
  amount: Money;
  savedMethod: SavedMethod;
  idempotencyKey: string;
}

export interface RedirectInput {
  orderId: string;
  amount: Money;
  idempotencyKey: string;
  /** Where the browser goes once the buyer approved (the outcome also arrives as a webhook). */
  returnUrl: string;
  /** Where the browser goes when the buyer cancels; no webhook follows. */
  cancelUrl: string;
}

export interface PaymentProvider {
  readonly kind: 'sandbox' | 'stripe';
  /** Charges a freshly tokenized card, the customer present. Declines are results, not errors. */
  charge(input: ChargeInput): Promise<ChargeResult>;
  /** Charges a saved card with the customer away (renewals): never `requires_action`, a card that needs authentication fails. */
  chargeSaved(input: SavedChargeInput): Promise<ChargeResult>;
  /** The payment's state now; throws NotFound for an id the provider does not know. */
  retrieve(paymentId: string): Promise<ChargeResult>;
  /**
   * Verifies the signature on the raw body (Stripe's scheme, 300 s tolerance) and parses the event;
   * throws WebhookSignatureError otherwise. Null for a genuine event we do not act on (another type,
   * or a payment that is not one of our orders'): acknowledge it and move on.
   */
  parseWebhook(rawBody: Buffer, signature: string | undefined): ProviderEvent | null;
  /**
   * A wallet paid by redirect (PayPal's flow): the buyer approves at `approveUrl`. Only providers that
   * offer one have it (the sandbox's PayPal stand-in).
   */
  createRedirect?(input: RedirectInput): Promise<{ paymentId: string; approveUrl: string }>;
}

/** A webhook whose signature is missing, forged, stale (over 300 s) or whose body is not an event: answer 400. */
export class WebhookSignatureError extends Error {
  override name = 'WebhookSignatureError';
}

/** How old a signed webhook may be, in seconds (Stripe's default). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

// Declines a later attempt on the same card may pass; every other decline is hard.
const softDeclines = new Set([
  'insufficient_funds',
  'processing_error',
  'try_again_later',
  'issuer_not_available',
  'reenter_transaction',
  'approve_with_id',
]);

export const isHardDecline = (reason: string): boolean => !softDeclines.has(reason);

/**
 * One stable reason from Stripe's error `code` and `decline_code`: the specific decline code when the
 * code is the generic card_declined (insufficient_funds, expired_card...), else the code itself.
 */
export function declineReason(error: { code?: string | null; decline_code?: string | null } | null | undefined): string {
  const code = error?.code ?? 'card_declined';
  const decline = error?.decline_code;
  if (code === 'card_declined') return decline && decline !== 'generic_decline' ? decline : 'card_declined';
  if (code === 'payment_intent_authentication_failure') return 'authentication_failed';
  return code;
}
