import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { trackEvent } from '../../api/analytics';
import { useT } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/en';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { usePayments } from './queries';
import './shop.css';

const OUTCOMES: Record<string, { title: MessageKey; hint: MessageKey; tone: string }> = {
  succeeded: { title: 'result.succeeded', hint: 'result.succeededHint', tone: 'success' },
  failed: { title: 'result.failed', hint: 'result.failedHint', tone: 'error' },
  canceled: { title: 'result.canceled', hint: 'result.canceledHint', tone: 'neutral' },
  pending: { title: 'result.pending', hint: 'result.pendingHint', tone: 'neutral' },
};

/** /order/result?orderId=&status=: the outcome of a payment, also where PayPal's cancel callback lands. */
export function OrderResultPage() {
  const t = useT();
  const [params] = useSearchParams();
  const orderId = params.get('orderId');
  const payments = usePayments();
  const order = payments.data?.pages.flatMap((page) => page.items).find((entry) => entry.id === orderId);
  const status = order?.status ?? params.get('status') ?? 'pending';
  const outcome = OUTCOMES[status] ?? OUTCOMES.pending!;
  useDocumentTitle(t('result.title'));

  // A conversion for the ad pixels, once per order, when the order itself says it succeeded.
  const paidOrder = order?.status === 'succeeded' ? order : undefined;
  const paidOrderId = paidOrder?.id;
  useEffect(() => {
    if (!paidOrder) return;
    trackEvent('purchase', {
      orderId: paidOrder.id,
      planId: paidOrder.planId,
      value: (paidOrder.price.amount / 100).toFixed(2),
      currency: paidOrder.price.currency,
    });
  }, [paidOrderId]);
  return (
    <div className="empty-page result">
      <span className={`result__icon result__icon--${outcome.tone}`} aria-hidden="true">
        {outcome.tone === 'success' ? '✓' : outcome.tone === 'error' ? '!' : 'i'}
      </span>
      <h1>{t(outcome.title)}</h1>
      <p>{t(outcome.hint)}</p>
      <div className="empty-page__actions">
        <Link to="/" className="button button--primary">{t('result.backHome')}</Link>
        {status !== 'succeeded' && <Link to="/shopping" className="button button--ghost">{t('result.tryAgain')}</Link>}
      </div>
    </div>
  );
}
