import { useEffect, useRef } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router-dom';
import type { Order, Plan, User } from '../../api/types';
import { useCurrentUser } from '../../api/userQueries';
import { useT } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/en';
import { trackPurchase } from '../../lib/conversions';
import { formatDate } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { usePlans, useRefreshAfterPayment, useSettlingOrder } from './queries';
import './shop.css';

type Outcome = 'succeeded' | 'failed' | 'canceled' | 'refunded' | 'pending' | 'checking';

const OUTCOMES: Record<Outcome, { title: MessageKey; hint: MessageKey; tone: 'success' | 'error' | 'neutral' }> = {
  succeeded: { title: 'result.succeeded', hint: 'result.succeededHint', tone: 'success' },
  failed: { title: 'result.failed', hint: 'result.failedHint', tone: 'error' },
  canceled: { title: 'result.canceled', hint: 'result.canceledHint', tone: 'neutral' },
  refunded: { title: 'result.refunded', hint: 'result.refundedHint', tone: 'neutral' },
  pending: { title: 'result.pending', hint: 'result.pendingHint', tone: 'neutral' },
  checking: { title: 'result.checking', hint: 'result.checkingHint', tone: 'neutral' },
};

const SETTLED = new Set(['succeeded', 'failed', 'canceled', 'refunded']);

/**
 * What the page says. The order as the payment service lists it decides; until it settles, the
 * link's own word (PayPal's cancel, the pay call's failure, the provider's redirect_status) stands
 * in, and an order still `created` is "checking" while polled and "pending" once polling stops.
 */
function outcomeOf(order: Order | null | undefined, hinted: string | null, polling: boolean): Outcome {
  if (order && SETTLED.has(order.status)) return order.status as Outcome;
  if (hinted === 'canceled' || hinted === 'failed') return hinted;
  if (polling) return 'checking';
  if (order === undefined && hinted === 'succeeded') return 'succeeded';
  return 'pending';
}

/** What a succeeded order gave, as the refreshed user now shows it. */
function purchaseText(plan: Plan | undefined, user: User | undefined): [MessageKey, Record<string, string | number>] | null {
  if (!plan || !user) return null;
  if (plan.kind === 'vip') return user.vip ? ['result.vipActive', { date: formatDate(user.vip.renewsAt) }] : null;
  return ['result.coinsAdded', { count: (plan.coins ?? 0) + (plan.bonusCoins ?? 0), balance: user.coins }];
}

/**
 * /order/result?orderId=&status=: the outcome of a payment. The card page, the 3-D Secure page,
 * PayPal's approve page and its cancel callback all land here.
 */
export function OrderResultPage() {
  const t = useT();
  const [params] = useSearchParams();
  const reason = (useLocation().state as { reason?: string | null } | null)?.reason ?? null;
  const orderId = params.get('orderId');
  const hinted = params.get('status') ?? params.get('redirect_status');
  const order = useSettlingOrder(orderId);
  const plans = usePlans();
  const user = useCurrentUser().data;
  const refresh = useRefreshAfterPayment();
  useDocumentTitle(t('result.title'));

  const outcome = outcomeOf(order.isError ? undefined : order.data, hinted, order.settling);
  const view = OUTCOMES[outcome];
  const paid = outcome === 'succeeded' && order.data ? order.data : undefined;
  const plan = plans.data?.find((entry) => entry.id === (order.data?.planId ?? ''));
  const bought = outcome === 'succeeded' ? purchaseText(plan, user) : null;

  // Coins, VIP and locks changed: once, when the order is seen succeeded.
  const refreshed = useRef(false);
  useEffect(() => {
    if (outcome !== 'succeeded' || refreshed.current) return;
    refreshed.current = true;
    refresh();
  }, [outcome, refresh]);

  // A conversion for our pixel and the ad pixels when the order itself says it succeeded; once per
  // order, however often this page shows it (trackPurchase remembers reported orders).
  const paidOrderId = paid?.id;
  useEffect(() => {
    if (paid) trackPurchase(paid);
  }, [paidOrderId]);

  return (
    <div className="empty-page result" aria-busy={outcome === 'checking'}>
      <span className={`result__icon result__icon--${view.tone}`} aria-hidden="true">
        {outcome === 'checking' ? <span className="spinner" /> : view.tone === 'success' ? '✓' : view.tone === 'error' ? '!' : 'i'}
      </span>
      <h1>{t(view.title)}</h1>
      {outcome === 'failed' && reason && (
        <p className="result__reason" role="alert">
          {reason}
        </p>
      )}
      <p role="status">{bought ? t(...bought) : t(view.hint)}</p>
      <div className="empty-page__actions">
        {outcome === 'succeeded' ? (
          <Link to="/" className="button button--primary">{t('result.backHome')}</Link>
        ) : outcome === 'pending' ? (
          <button type="button" className="button button--primary" onClick={() => void order.refetch()}>
            {t('result.checkAgain')}
          </button>
        ) : (
          <Link to={plan ? `/order/easy?planId=${encodeURIComponent(plan.id)}` : '/shopping'} className="button button--primary">
            {t(plan ? 'result.retry' : 'result.tryAgain')}
          </Link>
        )}
        {outcome !== 'succeeded' && <Link to="/" className="button button--ghost">{t('result.backHome')}</Link>}
      </div>
    </div>
  );
}
