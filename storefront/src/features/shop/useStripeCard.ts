import { useCallback, useEffect, useRef, useState } from 'react';
import { CardError } from '../../api/payment';
import { loadStripeJs, type StripeBillingDetails, type StripeClient, type StripeElements, type StripeElementsOptions, type StripeJsError, type StripePaymentElement } from './stripeJs';
import type { CardEntry } from './useCheckout';

export type StripeCardStatus = 'loading' | 'ready' | 'unavailable';

/** What the card will pay, as Elements must know it before the PaymentIntent exists. */
export interface StripeCharge {
  /** Minor units. */
  amount: number;
  currency: string;
  /** The card is kept for renewals (a VIP plan): the server's PaymentIntent then says `setup_future_usage`, and Elements must say the same. */
  saveCard: boolean;
}

/** Stripe's iframe cannot read our stylesheet: the Payment Element gets the site's colours and font through the Appearance API. */
function appearance(): StripeElementsOptions['appearance'] {
  const root = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => root.getPropertyValue(name).trim() || fallback;
  return {
    theme: 'night',
    variables: {
      colorPrimary: read('--accent', '#ff2e63'),
      colorBackground: read('--bg', '#0b0b10'),
      colorText: read('--text', '#f4f4f7'),
      colorTextSecondary: read('--text-muted', '#a9a9b8'),
      colorTextPlaceholder: read('--text-faint', '#8a8a9a'),
      colorDanger: '#ff8fa0',
      fontFamily: read('--font', 'system-ui, sans-serif'),
      borderRadius: '8px',
    },
  };
}

const unreachable = () => new CardError('provider_unreachable', 'The payment provider could not be reached.');
const refusal = (error: StripeJsError | undefined) => new CardError(error?.code ?? 'card_refused', error?.message ?? 'This card could not be used.');

/**
 * Stripe's Payment Element (cards only), mounted in the element given to `mount`: card number, expiry
 * and CVC are typed inside Stripe's iframe, so this page never sees them, and Stripe shows what is
 * wrong with them there. `onChange` hears that the card was edited (so our own message about the
 * previous one goes); `entry(billing)` is the card to pay with. Nothing mounts before `charge` is known.
 */
export function useStripeCard(publishableKey: string | null, locale: string, charge: StripeCharge | null, onChange: (message: string | null) => void) {
  const [container, mount] = useState<HTMLDivElement | null>(null);
  const [status, setStatus] = useState<StripeCardStatus>('loading');
  const [attempt, setAttempt] = useState(0);
  const mounted = useRef<{ stripe: StripeClient; elements: StripeElements; element: StripePaymentElement } | null>(null);
  // Every change inside the iframe counts: the same count means the same card as the last attempt.
  const edits = useRef(0);
  const changed = useRef(onChange);
  useEffect(() => {
    changed.current = onChange;
  }, [onChange]);

  const amount = charge?.amount;
  const currency = charge?.currency;
  const saveCard = charge?.saveCard;
  useEffect(() => {
    if (!publishableKey || !container || amount === undefined || !currency) return;
    let gone = false;
    let element: StripePaymentElement | null = null;
    loadStripeJs().then(
      (Stripe) => {
        if (gone) return;
        // The locale makes Stripe's field texts and error messages speak the viewer's language.
        const stripe = Stripe(publishableKey, { locale });
        const elements = stripe.elements({
          mode: 'payment',
          amount,
          currency: currency.toLowerCase(),
          // The server's PaymentIntent takes cards only; PayPal has its own button.
          paymentMethodTypes: ['card'],
          ...(saveCard ? { setupFutureUsage: 'off_session' as const } : {}),
          appearance: appearance(),
        });
        // No wallets: their sheet must open within the click, and the order is made before the card is read.
        element = elements.create('payment', { layout: 'tabs', wallets: { applePay: 'never', googlePay: 'never' } });
        element.on('change', () => {
          edits.current += 1;
          changed.current(null);
        });
        element.mount(container);
        mounted.current = { stripe, elements, element };
        setStatus('ready');
      },
      () => {
        if (!gone) setStatus('unavailable');
      },
    );
    return () => {
      gone = true;
      mounted.current = null;
      element?.destroy();
    };
  }, [publishableKey, container, locale, attempt, amount, currency, saveCard]);

  const retry = useCallback(() => {
    setStatus('loading');
    setAttempt((count) => count + 1);
  }, []);

  const focus = useCallback(() => mounted.current?.element.focus(), []);

  /**
   * The card as typed now. Tokenizing checks the Payment Element (`elements.submit()`) and asks Stripe
   * for a single-use ConfirmationToken carrying the payer's name and email; `authenticate` takes a
   * 3-D Secure challenge in the page (`handleNextAction`). Stripe's refusals come as CardErrors in its words.
   */
  const entry = useCallback(
    (billing: StripeBillingDetails): CardEntry => ({
      identity: ['stripe', edits.current],
      async tokenize() {
        const current = mounted.current;
        if (!current) throw new CardError('provider_unreachable', 'Stripe.js is not loaded.');
        let answer: Awaited<ReturnType<StripeClient['createConfirmationToken']>>;
        try {
          const checked = await current.elements.submit();
          if (checked.error) throw refusal(checked.error);
          answer = await current.stripe.createConfirmationToken({ elements: current.elements, params: { payment_method_data: { billing_details: billing } } });
        } catch (error) {
          throw error instanceof CardError ? error : unreachable();
        }
        if (answer.confirmationToken?.id) return answer.confirmationToken.id;
        throw refusal(answer.error);
      },
      async authenticate(clientSecret) {
        const current = mounted.current;
        if (!current) return unreachable();
        try {
          const answer = await current.stripe.handleNextAction({ clientSecret });
          return answer.error ? refusal(answer.error) : null;
        } catch {
          return unreachable();
        }
      },
    }),
    [],
  );

  return { mount, status, retry, focus, entry };
}
