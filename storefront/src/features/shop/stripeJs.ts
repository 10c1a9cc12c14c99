/**
 * The part of Stripe.js (docs.stripe.com/js) the card form uses: Elements without an intent and its
 * Payment Element, `createConfirmationToken`, and `handleNextAction` for 3-D Secure in the page.
 * Stripe.js must come from js.stripe.com itself, never from our bundle, so it is declared, not imported.
 */
export interface StripeJsError {
  type?: string;
  code?: string;
  message?: string;
}

/** The Payment Element's change event: whether what is typed is complete. Its errors show inside its own iframe. */
export interface StripePaymentChange {
  elementType: 'payment';
  empty: boolean;
  complete: boolean;
  collapsed?: boolean;
  value?: { type: string };
}

export interface StripePaymentElement {
  mount(container: HTMLElement): void;
  on(event: 'change', handler: (change: StripePaymentChange) => void): void;
  focus(): void;
  destroy(): void;
}

/** Elements created without an intent (`mode: 'payment'`): the PaymentIntent is made by our server at pay time. */
export interface StripeElementsOptions {
  mode: 'payment';
  /** Minor units, as the order's price. */
  amount: number;
  /** Lowercase ISO code. */
  currency: string;
  /** Must be what the server's PaymentIntent says: `off_session` when the card is kept for renewals. */
  setupFutureUsage?: 'off_session';
  paymentMethodTypes?: string[];
  appearance?: { theme?: 'stripe' | 'night' | 'flat'; variables?: Record<string, string> };
}

export interface StripePaymentElementOptions {
  layout?: 'tabs' | 'accordion';
  wallets?: { applePay?: 'auto' | 'never'; googlePay?: 'auto' | 'never' };
}

export interface StripeElements {
  create(type: 'payment', options?: StripePaymentElementOptions): StripePaymentElement;
  /** Checks the Payment Element's fields (and shows what is wrong inside it); called before createConfirmationToken. */
  submit(): Promise<{ error?: StripeJsError }>;
}

export interface StripeBillingDetails {
  name?: string;
  email?: string;
}

export interface StripeClient {
  elements(options: StripeElementsOptions): StripeElements;
  createConfirmationToken(options: {
    elements: StripeElements;
    params?: { payment_method_data?: { billing_details?: StripeBillingDetails } };
  }): Promise<{ confirmationToken?: { id: string }; error?: StripeJsError }>;
  /** Shows the PaymentIntent's next action (the bank's 3-D Secure challenge) in the page, and answers how it ended. */
  handleNextAction(options: { clientSecret: string }): Promise<{ paymentIntent?: { id: string; status: string }; error?: StripeJsError }>;
}

export type StripeJs = (publishableKey: string, options?: { locale?: string }) => StripeClient;

declare global {
  interface Window {
    Stripe?: StripeJs;
  }
}

export const STRIPE_JS_URL = 'https://js.stripe.com/v3/';

let loading: Promise<StripeJs> | null = null;

/**
 * Stripe.js, by a script tag added the first time a card form with Stripe asks for it (so a visitor who
 * never pays never loads it). A failed load removes its tag, so asking again tries again.
 */
export function loadStripeJs(): Promise<StripeJs> {
  if (window.Stripe) return Promise.resolve(window.Stripe);
  loading ??= new Promise<StripeJs>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = STRIPE_JS_URL;
    script.async = true;
    const fail = () => {
      script.remove();
      reject(new Error(`Stripe.js did not load from ${STRIPE_JS_URL}`));
    };
    script.addEventListener('load', () => (window.Stripe ? resolve(window.Stripe) : fail()), { once: true });
    script.addEventListener('error', fail, { once: true });
    document.head.appendChild(script);
  }).finally(() => {
    loading = null;
  });
  return loading;
}
