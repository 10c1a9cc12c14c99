import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { CardError } from '../../api/payment';
import { useCurrentUser } from '../../api/userQueries';
import { FormField } from '../../components/FormField';
import { CardIcon, LockIcon } from '../../components/PageIcons';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/en';
import { LANGUAGES } from '../../i18n/languages';
import { formatPrice } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import {
  cardDigits,
  cardRefusal,
  parseExpiry,
  typedInto,
  validateCardForm,
  validatePayer,
  type CardFormErrors,
  type CardFormValues,
} from './cardForm';
import { CardFields, ProviderPending } from './CardFields';
import { PlanSummary } from './PlanSummary';
import { shopQueries, usePaymentConfig, usePlans } from './queries';
import { sandboxCard, useCheckout, wasUnanswered, type CardEntry, type CardPaymentOutcome } from './useCheckout';
import { useStripeCard } from './useStripeCard';
import './shop.css';

/** Messages by field; `card` is Stripe's word on the card in its Payment Element. */
type FieldErrors = Partial<Record<keyof CardFormValues | 'card', string>>;

const FORM_FIELDS: (keyof CardFormValues)[] = ['cardNumber', 'email', 'expiry', 'cvv', 'firstName', 'lastName'];

/** The field messages of a 422 answer that belong to this form's fields, or null when none does. */
function formFields(fields: Record<string, string>): FieldErrors | null {
  const ours = Object.entries(fields).filter(([name]) => FORM_FIELDS.includes(name as keyof CardFormValues));
  return ours.length > 0 ? Object.fromEntries(ours) : null;
}

const resultPath = (orderId: string, status: string) => `/order/result?orderId=${encodeURIComponent(orderId)}&status=${status}`;

/**
 * /order/easy?planId= (or ?orderId= for an order made elsewhere): the card form of the spec and a
 * PayPal button. The card goes to the provider's tokenizer (the sandbox's, or Stripe's Payment Element
 * and a ConfirmationToken when GET /api/payment/config says Stripe); the order is paid with the token
 * only. With Stripe, a 3-D Secure challenge is taken in this page (useCheckout's authenticateInPage).
 */
export function OrderEasyPage() {
  const { t, language } = useI18n();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const planId = params.get('planId');
  const linkedOrderId = params.get('orderId');
  const plans = usePlans();
  const plan = plans.data?.find((entry) => entry.id === planId);
  const user = useCurrentUser().data;
  const { payByCard, payByPaypal } = useCheckout(planId, linkedOrderId);
  const [values, setValues] = useState<CardFormValues>({ cardNumber: '', email: '', expiry: '', cvv: '', firstName: '', lastName: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [leaving, setLeaving] = useState(false);
  const config = usePaymentConfig();
  const provider = config.data;
  const stripeKey = provider?.provider === 'stripe' ? provider.publishableKey : null;
  // Stripe's Payment Element must know the price before it mounts: the plan's, or a linked order's as the order list has it.
  const linkedOrder = useQuery({ ...shopQueries.order(linkedOrderId ?? ''), enabled: Boolean(stripeKey && linkedOrderId) }).data;
  const bought = plan ?? plans.data?.find((entry) => entry.id === linkedOrder?.planId);
  const charged = plan?.price ?? linkedOrder?.price;
  const showCardMessage = useCallback((message: string | null) => setErrors((current) => ({ ...current, card: message ?? undefined })), []);
  const stripeCard = useStripeCard(
    stripeKey,
    LANGUAGES.find((entry) => entry.code === language)?.htmlLang ?? 'auto',
    charged ? { amount: charged.amount, currency: charged.currency, saveCard: bought?.kind === 'vip' } : null,
    showCardMessage,
  );
  useDocumentTitle(t('order.title'));

  // The account's email, once known, fills an email field the user has not typed in.
  const knownEmail = user?.email;
  useEffect(() => {
    if (knownEmail) setValues((current) => (current.email ? current : { ...current, email: knownEmail }));
  }, [knownEmail]);

  if (!linkedOrderId && (!planId || (plans.data && !plan))) {
    return (
      <div className="empty-page">
        <p>{t('order.missing')}</p>
        <Link to="/shopping" className="button button--primary">{t('result.tryAgain')}</Link>
      </div>
    );
  }

  const set = (name: keyof CardFormValues, value: string) => {
    setValues((current) => ({ ...current, [name]: value }));
    setErrors((current) => ({ ...current, [name]: undefined }));
  };

  const leaveFor = (url: string) => {
    setLeaving(true);
    window.location.assign(url);
  };

  const settle = (outcome: CardPaymentOutcome) => {
    if (outcome.kind === 'requires_action') return leaveFor(outcome.actionUrl);
    if (outcome.kind === 'failed') {
      navigate(resultPath(outcome.orderId, 'failed'), { replace: true, state: { reason: outcome.reason } });
      return;
    }
    navigate(resultPath(outcome.orderId, outcome.kind), { replace: true });
  };

  const explain = (error: unknown) => {
    if (error instanceof CardError && error.code !== 'provider_unreachable' && provider?.provider === 'stripe') {
      // Stripe's message, in the viewer's language (Stripe.js has the locale), where the card is typed.
      setErrors((current) => ({ ...current, card: error.message }));
    } else if (error instanceof CardError) {
      const refusal = cardRefusal(error.code, values.cardNumber);
      if (refusal) setErrors((current) => ({ ...current, [refusal.field]: t(refusal.message) }));
      else setFailure(t(error.code === 'provider_unreachable' ? 'order.providerUnreachable' : 'order.cardRefused'));
    } else if (wasUnanswered(error)) {
      setFailure(t('order.interrupted'));
    } else if (error instanceof ApiError && formFields(error.fields)) {
      setErrors((current) => ({ ...current, ...formFields(error.fields) }));
    } else {
      setFailure(error instanceof ApiError && error.message ? error.message : t('common.unknownError'));
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!provider) return;
    const stripe = provider.provider === 'stripe';
    const found: CardFormErrors = stripe ? validatePayer(values) : validateCardForm(values);
    // Stripe's word on the card stands until its field changes: it knows, the form does not.
    setErrors((current) => ({
      ...(stripe && current.card ? { card: current.card } : {}),
      ...Object.fromEntries(Object.entries(found).map(([name, key]) => [name, t(key as MessageKey)])),
    }));
    setFailure(null);
    if (Object.keys(found).length > 0) return;
    const email = values.email.trim();
    const payer = { email, firstName: values.firstName.trim(), lastName: values.lastName.trim() };
    let card: CardEntry;
    if (stripe) {
      card = stripeCard.entry({ name: `${payer.firstName} ${payer.lastName}`, email });
    } else {
      const expiry = parseExpiry(values.expiry);
      if (!expiry) return;
      card = sandboxCard(provider.tokenUrl, { number: cardDigits(values.cardNumber), expMonth: expiry.month, expYear: expiry.year, cvc: values.cvv.trim(), email });
    }
    payByCard.mutate({ card, payer }, { onSuccess: settle, onError: explain });
  };

  const payWithPaypal = () => {
    setFailure(null);
    payByPaypal.mutate(undefined, { onSuccess: ({ approveUrl }) => leaveFor(approveUrl), onError: explain });
  };

  const field = (name: keyof CardFormValues) => ({
    value: values[name],
    error: errors[name],
    onChange: (event: ChangeEvent<HTMLInputElement>) => set(name, typedInto(name, event.target.value, values[name])),
  });
  const busy = payByCard.isPending || payByPaypal.isPending || leaving;
  const price = plan ? formatPrice(plan.price.amount, plan.price.currency) : '';

  return (
    <div className="page checkout">
      <h1 className="page__title">{t('order.title')}</h1>
      {plan && <PlanSummary plan={plan} />}
      {!provider ? (
        <ProviderPending config={config} />
      ) : (
        <>
          <form className="form checkout__form" noValidate onSubmit={submit} aria-busy={busy}>
            {failure && (
              <p className="notice notice--error" role="alert">
                {failure}
              </p>
            )}
            <CardFields provider={provider} stripeCard={stripeCard} cardError={errors.card} field={field} />
            <FormField label={t('auth.email')} type="email" autoComplete="email" {...field('email')} />
            <div className="form__row">
              <FormField label={t('order.firstName')} autoComplete="cc-given-name" {...field('firstName')} />
              <FormField label={t('order.lastName')} autoComplete="cc-family-name" {...field('lastName')} />
            </div>
            <button type="submit" className="button button--primary button--block" disabled={busy || (provider.provider === 'stripe' && stripeCard.status !== 'ready')}>
              <CardIcon size={18} /> {payByCard.isPending || payByCard.isSuccess ? t('order.paying') : price ? t('order.pay', { price }) : t('order.payNow')}
            </button>
            <p className="checkout__secure">
              <LockIcon size={14} /> {t('order.secure')}
            </p>
          </form>
          <div className="checkout__alternative">
            <span className="checkout__or">{t('auth.or')}</span>
            <button type="button" className="button button--paypal button--block" disabled={busy} onClick={payWithPaypal}>
              {payByPaypal.isPending || payByPaypal.isSuccess ? t('order.toPaypal') : t('order.paypal')}
            </button>
          </div>
        </>
      )}
    </div>
  );
}
