import { useCallback, useEffect, useRef, useState } from 'react';
import { CardError } from '../../api/payment';
import { loadStripeJs, type StripeCardElement, type StripeClient } from './stripeJs';
import type { CardEntry } from './useCheckout';

export type StripeCardStatus = 'loading' | 'ready' | 'unavailable';

/** Stripe's iframe cannot read our stylesheet: the Card Element gets the site's colours and font as options. */
function cardStyle(): Record<string, Record<string, unknown>> {
  const root = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => root.getPropertyValue(name).trim() || fallback;
  return {
    base: {
      color: read('--text', '#f4f4f7'),
      iconColor: read('--text-muted', '#a9a9b8'),
      fontFamily: read('--font', 'system-ui, sans-serif'),
      fontSize: '16px',
      '::placeholder': { color: read('--text-faint', '#8a8a9a') },
    },
    invalid: { color: '#ff8fa0', iconColor: '#ff8fa0' },
  };
}

/**
 * Stripe Elements' card field, mounted in the element given to `mount`: card number, expiry and CVC
 * are typed inside Stripe's iframe, so this page never sees them. `onChange` hears Stripe's own words
 * about what was typed (null once it is fine); `entry(name)` is the card to pay with.
 */
export function useStripeCard(publishableKey: string | null, locale: string, onChange: (message: string | null) => void) {
  const [container, mount] = useState<HTMLDivElement | null>(null);
  const [status, setStatus] = useState<StripeCardStatus>('loading');
  const [attempt, setAttempt] = useState(0);
  const mounted = useRef<{ stripe: StripeClient; card: StripeCardElement } | null>(null);
  // Every change inside the iframe counts: the same count means the same card as the last attempt.
  const edits = useRef(0);
  const changed = useRef(onChange);
  useEffect(() => {
    changed.current = onChange;
  }, [onChange]);

  useEffect(() => {
    if (!publishableKey || !container) return;
    let gone = false;
    let card: StripeCardElement | null = null;
    loadStripeJs().then(
      (Stripe) => {
        if (gone) return;
        // The locale makes Stripe's field texts and error messages speak the viewer's language.
        const stripe = Stripe(publishableKey, { locale });
        card = stripe.elements().create('card', { style: cardStyle() });
        card.on('change', (change) => {
          edits.current += 1;
          changed.current(change.error?.message ?? null);
        });
        card.mount(container);
        mounted.current = { stripe, card };
        setStatus('ready');
      },
      () => {
        if (!gone) setStatus('unavailable');
      },
    );
    return () => {
      gone = true;
      mounted.current = null;
      card?.destroy();
    };
  }, [publishableKey, container, locale, attempt]);

  const retry = useCallback(() => {
    setStatus('loading');
    setAttempt((count) => count + 1);
  }, []);

  const focus = useCallback(() => mounted.current?.card.focus(), []);

  /** The card as typed now; tokenizing it asks Stripe for a single-use token in the cardholder's name. */
  const entry = useCallback(
    (name: string): CardEntry => ({
      identity: ['stripe', edits.current],
      async tokenize() {
        const current = mounted.current;
        if (!current) throw new CardError('provider_unreachable', 'Stripe.js is not loaded.');
        let answer: Awaited<ReturnType<StripeClient['createToken']>>;
        try {
          answer = await current.stripe.createToken(current.card, { name });
        } catch {
          throw new CardError('provider_unreachable', 'The payment provider could not be reached.');
        }
        if (answer.token?.id) return answer.token.id;
        throw new CardError(answer.error?.code ?? 'card_refused', answer.error?.message ?? 'This card could not be used.');
      },
    }),
    [],
  );

  return { mount, status, retry, focus, entry };
}
