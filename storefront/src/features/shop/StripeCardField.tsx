import { useId } from 'react';
import { useT } from '../../i18n/I18nProvider';
import type { StripeCardStatus } from './useStripeCard';

interface StripeCardFieldProps {
  label: string;
  status: StripeCardStatus;
  /** Stripe's message about the card, shown where the card is typed. */
  error?: string;
  mount: (container: HTMLDivElement | null) => void;
  focus: () => void;
  retry: () => void;
}

/**
 * The place of the card number, expiry and CVV fields when Stripe takes the card: Stripe's Payment
 * Element mounts in the box, with the same label and error line as the form's other fields.
 */
export function StripeCardField({ label, status, error, mount, focus, retry }: StripeCardFieldProps) {
  const t = useT();
  const id = useId();
  return (
    <div className={`field ${error ? 'field--error' : ''}`} role="group" aria-labelledby={`${id}-label`} aria-describedby={error ? `${id}-error` : undefined}>
      {/* Not tied to an input (the inputs are in Stripe's iframe): a click focuses the Payment Element instead. */}
      <label id={`${id}-label`} className="field__label" onClick={focus}>
        {label}
      </label>
      <div ref={mount} className="stripe-card" aria-busy={status === 'loading'} />
      {status === 'loading' && (
        <p className="checkout__status">
          <span className="spinner" aria-hidden="true" /> {t('order.cardLoading')}
        </p>
      )}
      {status === 'unavailable' && (
        <p className="field__error" role="alert">
          {t('order.providerUnreachable')}{' '}
          <button type="button" className="checkout__retry" onClick={retry}>
            {t('list.retry')}
          </button>
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field__error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
