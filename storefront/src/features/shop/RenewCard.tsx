import { useCallback, useState, type ChangeEvent, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { CardError } from '../../api/payment';
import type { Subscription } from '../../api/types';
import { usePayments } from '../../api/paymentQueries';
import { useCurrentUser } from '../../api/userQueries';
import { CardIcon, LockIcon } from '../../components/PageIcons';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/en';
import { htmlLangOf } from '../../i18n/languages';
import { formatDate } from '../../lib/format';
import { CardFields, ProviderPending } from './CardFields';
import { cardDigits, cardRefusal, parseExpiry, typedInto, validateCard, type CardFormValues } from './cardForm';
import { usePaymentConfig, usePlans, useReplaceCard, type CardReplaced } from './queries';
import { sandboxCard, wasUnanswered, type CardEntry } from './useCheckout';
import { useStripeCard } from './useStripeCard';

type CardValues = Pick<CardFormValues, 'cardNumber' | 'expiry' | 'cvv'>;
type FieldErrors = Partial<Record<keyof CardValues | 'card', string>>;

interface RenewCardProps {
  subscription: Subscription;
  /** The plan's title from /api/plan, when it is still listed. */
  planTitle?: string;
  /** The new card paid: the subscription is active again. */
  onRenewed: (subscription: CardReplaced) => void;
}

/**
 * A VIP whose renewal failed (`past_due`; the failed-renewal mail links to /shopping): says so and
 * takes a new card in the checkout's card fields. POST /api/payment/method charges the failed period
 * on it at once; a decline shows here, in the provider's words. 3-D Secure is taken in this page with
 * Stripe (useReplaceCard); the sandbox's leaves for the bank's page, which comes back to /order/result.
 */
export function RenewCard({ subscription, planTitle, onRenewed }: RenewCardProps) {
  const { t, language } = useI18n();
  const navigate = useNavigate();
  const config = usePaymentConfig();
  const provider = config.data;
  const email = useCurrentUser().data?.email ?? '';
  const replace = useReplaceCard();
  const [values, setValues] = useState<CardValues>({ cardNumber: '', expiry: '', cvv: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [declined, setDeclined] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [leaving, setLeaving] = useState(false);
  const showCardMessage = useCallback((message: string | null) => setErrors((current) => ({ ...current, card: message ?? undefined })), []);
  // The failed period's order is the newest of the plan's; the plan's listed price stands in until the list is here.
  const orders = usePayments().data?.pages[0]?.items;
  const plans = usePlans().data;
  const price = orders?.find((order) => order.planId === subscription.planId)?.price ?? plans?.find((plan) => plan.id === subscription.planId)?.price;
  const stripeCard = useStripeCard(
    provider?.provider === 'stripe' ? provider.publishableKey : null,
    htmlLangOf(language),
    price ? { amount: price.amount, currency: price.currency, saveCard: true } : null,
    showCardMessage,
  );

  const settle = (answer: CardReplaced) => {
    if (answer.payment.status === 'requires_action' && answer.payment.actionUrl) {
      setLeaving(true);
      window.location.assign(answer.payment.actionUrl);
    } else if (answer.payment.status === 'requires_action') {
      // Nothing left to do here, and no outcome yet (the bank still deciding): the result page waits for it.
      navigate(`/order/result?orderId=${encodeURIComponent(answer.payment.orderId)}`);
    } else if (answer.payment.status === 'succeeded') {
      onRenewed(answer);
    } else {
      setDeclined(answer.payment.message ?? t('order.cardRefused'));
    }
  };

  const explain = (error: unknown) => {
    if (error instanceof CardError && error.code !== 'provider_unreachable' && provider?.provider === 'stripe') {
      setErrors((current) => ({ ...current, card: error.message }));
    } else if (error instanceof CardError) {
      const refusal = cardRefusal(error.code, values.cardNumber);
      if (refusal && refusal.field !== 'email') setErrors((current) => ({ ...current, [refusal.field]: t(refusal.message) }));
      else setFailure(t(error.code === 'provider_unreachable' ? 'order.providerUnreachable' : 'order.cardRefused'));
    } else if (wasUnanswered(error)) {
      setFailure(t('order.interrupted'));
    } else {
      setFailure(error instanceof ApiError && error.message ? error.message : t('common.unknownError'));
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!provider) return;
    const stripe = provider.provider === 'stripe';
    const found = stripe ? {} : validateCard(values);
    setErrors((current) => ({
      ...(stripe && current.card ? { card: current.card } : {}),
      ...Object.fromEntries(Object.entries(found).map(([name, key]) => [name, t(key as MessageKey)])),
    }));
    setDeclined(null);
    setFailure(null);
    if (Object.keys(found).length > 0) return;
    let card: CardEntry;
    if (stripe) {
      card = stripeCard.entry({ email });
    } else {
      const expiry = parseExpiry(values.expiry);
      if (!expiry) return;
      card = sandboxCard(provider.tokenUrl, { number: cardDigits(values.cardNumber), expMonth: expiry.month, expYear: expiry.year, cvc: values.cvv.trim(), email });
    }
    replace.mutate(card, { onSuccess: settle, onError: explain });
  };

  const field = (name: keyof CardFormValues) => ({
    value: values[name as keyof CardValues],
    error: errors[name as keyof CardValues],
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      const key = name as keyof CardValues;
      setValues((current) => ({ ...current, [key]: typedInto(key, event.target.value, current[key]) }));
      setErrors((current) => ({ ...current, [key]: undefined }));
    },
  });
  const busy = replace.isPending || leaving;

  return (
    <section id="renew" className="current-plan renew-card" aria-labelledby="renew-title">
      <h2 id="renew-title" className="section-title">
        <CardIcon size={18} /> {t('renew.title')}
      </h2>
      <p className="notice notice--error">{t('renew.hint', { plan: planTitle ?? t('account.planVip'), date: formatDate(subscription.renewsAt) })}</p>
      {!provider ? (
        <ProviderPending config={config} />
      ) : (
        <form className="form checkout__form" noValidate onSubmit={submit} aria-busy={busy} aria-label={t('renew.title')}>
          {declined && (
            <div className="notice notice--error" role="alert">
              <strong>{t('renew.declined')}</strong> {declined}
            </div>
          )}
          {failure && (
            <p className="notice notice--error" role="alert">
              {failure}
            </p>
          )}
          <CardFields provider={provider} stripeCard={stripeCard} cardError={errors.card} field={field} />
          <button type="submit" className="button button--vip button--block" disabled={busy || (provider.provider === 'stripe' && stripeCard.status !== 'ready')}>
            <CardIcon size={18} /> {busy ? t('order.paying') : t('renew.submit')}
          </button>
          <p className="checkout__secure">
            <LockIcon size={14} /> {t('order.secure')}
          </p>
        </form>
      )}
    </section>
  );
}
