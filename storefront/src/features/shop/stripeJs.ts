/**
 * The part of Stripe.js (docs.stripe.com/js) the card form uses: a Card Element and createToken.
 * Stripe.js must come from js.stripe.com itself, never from our bundle, so it is declared, not imported.
 */
export interface StripeJsError {
  type?: string;
  code?: string;
  message?: string;
}

export interface StripeCardChange {
  empty: boolean;
  complete: boolean;
  error?: StripeJsError;
}

export interface StripeCardElement {
  mount(container: HTMLElement): void;
  on(event: 'change', handler: (change: StripeCardChange) => void): void;
  focus(): void;
  destroy(): void;
}

export interface StripeClient {
  elements(): { create(type: 'card', options?: { style?: Record<string, Record<string, unknown>> }): StripeCardElement };
  createToken(card: StripeCardElement, data: { name: string }): Promise<{ token?: { id: string }; error?: StripeJsError }>;
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
