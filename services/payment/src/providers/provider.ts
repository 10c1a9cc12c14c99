/**
 * The payment-provider port: what the payment service needs from a card processor, and nothing of
 * how one works. Two adapters implement it — the sandbox (embedded mode and tests: Stripe's test
 * cards, state in our database) and Stripe — and one contract suite (test/provider.contract.ts)
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
 * - `requires_action`: the customer must authenticate (3-D Secure). `clientSecret` lets the page show
 *   the challenge in place (Stripe.js's `handleNextAction({ clientSecret })`); `actionUrl`, when there
 *   is one, is the same challenge as a page the browser leaves for and comes back from at the charge's
 *   `returnUrl`. Either way the outcome arrives as a webhook and via `retrieve`.
 * - `processing`: no outcome yet and nothing for the customer to do (Stripe's `processing`); the
 *   webhook settles it. The sandbox never answers it.
 * - `failed`: nothing is taken. `reason` is a stable code (see `declineReason`); `hardDecline` says
 *   the same card will not pass later (lost, stolen, fraudulent, a wrong number, a closed account:
 *   renewals stop), any other decline may. `paymentId` is null when the provider refused before
 *   a payment existed (an unusable token).
 */
export type ChargeResult =
  | { status: 'succeeded'; paymentId: string; savedMethod: SavedMethod | null }
  | { status: 'requires_action'; paymentId: string; clientSecret: string; actionUrl: string | null }
  | { status: 'processing'; paymentId: string }
  | { status: 'failed'; paymentId: string | null; reason: string; hardDecline: boolean };

/**
 * A verified provider notification about one of our payments. Each carries the provider's event id:
 * the same notification delivered twice keeps it, so apply each id once.
 * - `payment.succeeded` / `payment.failed`: a charge's outcome (its metadata carries our order id);
 *   `reason` is the decline code, as in `ChargeResult`; `savedMethod` the card kept for renewals.
 * - `payment.refunded` (Stripe's `charge.refunded`): money of the payment went back, by our call or one
 *   made at the provider's dashboard; `amountRefunded` is every refund of the payment so far.
 * - `payment.disputed` (`charge.dispute.created`) and `payment.dispute_closed` (`charge.dispute.closed`):
 *   `won` when the money stays with us (Stripe's `won`, or `warning_closed` for an inquiry that never
 *   became a chargeback), not when it is `lost`.
 * Refunds and disputes name the payment only: the order is the one that payment paid for.
 */
export type ProviderEvent =
  | { id: string; type: 'payment.succeeded'; paymentId: string; orderId: string; savedMethod: SavedMethod | null }
  | { id: string; type: 'payment.failed'; paymentId: string; orderId: string; reason: string }
  | { id: string; type: 'payment.refunded'; paymentId: string; amountRefunded: Money }
  | { id: string; type: 'payment.disputed'; paymentId: string; disputeId: string; amount: Money; reason: string }
  | { id: string; type: 'payment.dispute_closed'; paymentId: string; disputeId: string; won: boolean; status: string };

export interface RefundInput {
  paymentId: string;
  /** Minor units, at most what is left unrefunded of the payment. */
  amount: Money;
  /** The same key always answers the first refund and never refunds twice. */
  idempotencyKey: string;
  /** Our order and refund ids, kept with the refund at the provider. */
  metadata: { orderId: string; refundId: string };
}

/** A refund the provider accepted: `pending` ones (some cards, bank transfers) still return the money. */
export interface RefundResult {
  refundId: string;
  status: 'succeeded' | 'pending';
  amount: Money;
}

export interface ChargeInput {
  orderId: string;
  amount: Money;
  /**
   * What the browser got from the provider for the card: a ConfirmationToken (`ctoken_`, Stripe.js's
   * `createConfirmationToken`), which confirms the PaymentIntent in the same call; a legacy card token
   * (`tok_`, `createToken`) still pays, for pages loaded before the change. Single use either way.
   */
  paymentToken: string;
  customer: { userId: string; email: string; name: string };
  /** The same key always answers the first charge's result and never charges twice. */
  idempotencyKey: string;
  /** Keep the card for off-session renewals (`chargeSaved`) once this charge succeeds. */
  saveForLater: boolean;
  /** Where the browser returns when an action leaves the page (a bank's page, another payment method's redirect). */
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
   * Gives `amount` of a succeeded payment back to the customer (Stripe's Refunds API), whole or in
   * part. Throws Conflict for a payment that cannot be refunded (not succeeded, already refunded,
   * disputed) and Invalid when the amount exceeds what is left; the provider then also sends
   * `payment.refunded` as a webhook.
   */
  refund(input: RefundInput): Promise<RefundResult>;
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

// Declines no later attempt on the same card can pass: the card is lost, stolen or closed, its number
// is wrong, or the bank suspects fraud. Every other decline (a generic card_declined, do_not_honor,
// insufficient funds, an off-session authentication_required...) may pass on a later try, as
// Stripe's Smart Retries treat them (issue 25).
const hardDeclines = new Set([
  'lost_card',
  'stolen_card',
  'pickup_card',
  'fraudulent',
  'merchant_blacklist',
  'incorrect_number',
  'invalid_number',
  'invalid_account',
  'account_closed',
  'do_not_try_again',
  // The card reference itself is unusable: a spent token, a card the provider no longer holds.
  'resource_missing',
  'token_already_used',
  'token_in_use',
]);

export const isHardDecline = (reason: string): boolean => hardDeclines.has(reason);

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
