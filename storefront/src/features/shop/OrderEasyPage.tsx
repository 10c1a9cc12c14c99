import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { CardError } from '../../api/payment';
import { FormField } from '../../components/FormField';
import { CardIcon, LockIcon } from '../../components/Icons';
import { useT } from '../../i18n/I18nProvider';
import { formatPrice } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useCurrentUser } from '../account/queries';
import { groupCardNumber, parseExpiry, validateCardForm, type CardFormErrors, type CardFormValues } from './cardForm';
import { usePay, usePlans } from './queries';
import './shop.css';

function newIdempotencyKey(): string {
  return typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** /order/easy?orderId=&planId=: the card form; the card is tokenized by the provider and only the token is paid with. */
export function OrderEasyPage() {
  const t = useT();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const orderId = params.get('orderId') ?? '';
  const plans = usePlans();
  const plan = plans.data?.find((entry) => entry.id === params.get('planId'));
  const unavailable = plans.error instanceof ApiError && plans.error.code === 404;
  const user = useCurrentUser().data;
  const pay = usePay();
  const idempotencyKey = useRef(newIdempotencyKey());
  const [values, setValues] = useState<CardFormValues>({ cardNumber: '', email: user?.email ?? '', expiry: '', cvv: '', firstName: '', lastName: '' });
  const [errors, setErrors] = useState<CardFormErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  useDocumentTitle(t('order.title'));

  if (!orderId) {
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

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateCardForm(values);
    setErrors(found);
    setFailure(null);
    const expiry = parseExpiry(values.expiry);
    if (Object.keys(found).length > 0 || !expiry) return;
    try {
      const result = await pay.mutateAsync({
        orderId,
        idempotencyKey: idempotencyKey.current,
        card: { number: values.cardNumber.replace(/\D/g, ''), expMonth: expiry.month, expYear: expiry.year, cvc: values.cvv, email: values.email.trim() },
        payer: { email: values.email.trim(), firstName: values.firstName.trim(), lastName: values.lastName.trim() },
      });
      if (result.status === 'failed') {
        idempotencyKey.current = newIdempotencyKey();
        setFailure(result.message ?? t('result.failedHint'));
        return;
      }
      navigate(`/order/result?orderId=${encodeURIComponent(orderId)}&status=${result.status}`, { replace: true });
    } catch (error) {
      if (error instanceof CardError) setFailure(error.message);
      else if (error instanceof ApiError && error.code === 404) setFailure(t('shop.unavailable'));
      idempotencyKey.current = newIdempotencyKey();
    }
  };

  const field = (name: keyof CardFormValues) => ({
    value: values[name],
    error: errors[name] ? t(errors[name]!) : undefined,
    onChange: (event: React.ChangeEvent<HTMLInputElement>) =>
      set(name, name === 'cardNumber' ? groupCardNumber(event.target.value) : event.target.value),
  });
  const price = plan ? formatPrice(plan.price.amount, plan.price.currency) : '';

  return (
    <div className="page checkout">
      <h1 className="page__title">{t('order.title')}</h1>
      {unavailable && (
        <p className="notice checkout__unavailable" role="status">
          {t('shop.unavailable')}
        </p>
      )}
      {plan && (
        <section className="checkout__summary" aria-label={t('order.summary')}>
          <span>{plan.title}</span>
          <span>
            {t('order.total')} <strong>{price}</strong>
          </span>
          {plan.periodDays && <p className="plan__terms">{t('shop.renewal', { days: plan.periodDays })}</p>}
        </section>
      )}
      <form className="form checkout__form" noValidate onSubmit={(event) => void submit(event)}>
        {failure && <p className="notice" role="alert">{failure}</p>}
        <FormField label={t('order.cardNumber')} inputMode="numeric" autoComplete="cc-number" placeholder="1234 5678 9012 3456" {...field('cardNumber')} />
        <div className="form__row">
          <FormField label={t('order.expiry')} inputMode="numeric" autoComplete="cc-exp" placeholder="MM/YY" maxLength={5} {...field('expiry')} />
          <FormField label={t('order.cvv')} inputMode="numeric" autoComplete="cc-csc" maxLength={4} {...field('cvv')} />
        </div>
        <FormField label={t('auth.email')} type="email" autoComplete="email" {...field('email')} />
        <div className="form__row">
          <FormField label={t('order.firstName')} autoComplete="cc-given-name" {...field('firstName')} />
          <FormField label={t('order.lastName')} autoComplete="cc-family-name" {...field('lastName')} />
        </div>
        <button type="submit" className="button button--primary button--block" disabled={pay.isPending}>
          <CardIcon size={18} /> {pay.isPending ? t('order.paying') : t('order.pay', { price })}
        </button>
        <p className="checkout__secure">
          <LockIcon size={14} /> {t('order.secure')}
        </p>
      </form>
    </div>
  );
}
