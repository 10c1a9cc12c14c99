import type { UseQueryResult } from '@tanstack/react-query';
import type { ChangeEvent } from 'react';
import type { PaymentConfig } from '../../api/payment';
import { FormField } from '../../components/FormField';
import { useT } from '../../i18n/I18nProvider';
import type { CardFormValues } from './cardForm';
import { StripeCardField } from './StripeCardField';
import type { useStripeCard } from './useStripeCard';

export interface CardFieldProps {
  value: string;
  error?: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
}

interface CardFieldsProps {
  provider: PaymentConfig;
  stripeCard: ReturnType<typeof useStripeCard>;
  /** Stripe's word on the card in its Payment Element. */
  cardError?: string;
  field: (name: keyof CardFormValues) => CardFieldProps;
}

/**
 * Where a card is typed: Stripe's Payment Element when Stripe takes the card, else the sandbox's card
 * number, expiry and CVV fields. The checkout and a past-due VIP's new card both use it.
 */
export function CardFields({ provider, stripeCard, cardError, field }: CardFieldsProps) {
  const t = useT();
  if (provider.provider === 'stripe') {
    return (
      <StripeCardField
        label={t('order.card')}
        error={cardError}
        status={stripeCard.status}
        mount={stripeCard.mount}
        focus={stripeCard.focus}
        retry={stripeCard.retry}
      />
    );
  }
  return (
    <>
      <FormField label={t('order.cardNumber')} inputMode="numeric" autoComplete="cc-number" placeholder="1234 5678 9012 3456" {...field('cardNumber')} />
      <div className="form__row">
        <FormField label={t('order.expiry')} inputMode="numeric" autoComplete="cc-exp" placeholder={t('order.expiryPlaceholder')} maxLength={5} {...field('expiry')} />
        <FormField label={t('order.cvv')} inputMode="numeric" autoComplete="cc-csc" maxLength={4} {...field('cvv')} />
      </div>
    </>
  );
}

/** While the payment provider's settings load: a spinner, or the error with a way to ask again. */
export function ProviderPending({ config }: { config: Pick<UseQueryResult<unknown>, 'isError' | 'refetch'> }) {
  const t = useT();
  return config.isError ? (
    <p className="notice notice--error" role="alert">
      {t('order.providerUnreachable')}{' '}
      <button type="button" className="checkout__retry" onClick={() => void config.refetch()}>
        {t('list.retry')}
      </button>
    </p>
  ) : (
    <p className="checkout__status">
      <span className="spinner" aria-hidden="true" /> {t('list.loading')}
    </p>
  );
}
