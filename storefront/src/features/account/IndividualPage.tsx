import { ApiError } from '../../api/client';
import { useT } from '../../i18n/I18nProvider';
import { formatDate, formatPrice } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { orderStatusText } from '../shop/orderStatus';
import { useCancelSubscription, usePayments } from '../shop/queries';
import { useCurrentUser } from './queries';
import './account.css';

/** /individual: the account's details, its subscription and its orders. */
export function IndividualPage() {
  const t = useT();
  const user = useCurrentUser().data;
  const payments = usePayments();
  const cancel = useCancelSubscription();
  useDocumentTitle(t('account.details'));
  const paymentsUnavailable = payments.error instanceof ApiError && payments.error.code === 404;
  const orders = payments.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <div className="page account">
      <h1 className="page__title">{t('account.details')}</h1>
      <dl className="details">
        <div>
          <dt>{t('auth.email')}</dt>
          <dd>{user?.email ?? t('account.guest')}</dd>
        </div>
        <div>
          <dt>{t('account.id')}</dt>
          <dd className="details__mono">{user?.id ?? '—'}</dd>
        </div>
        <div>
          <dt>{t('account.coins')}</dt>
          <dd>{user?.coins ?? 0}</dd>
        </div>
        <div>
          <dt>{t('account.plan')}</dt>
          <dd>
            {user?.vip ? t('account.planVip') : t('account.planFree')}
            {user?.vip && (
              <span className="details__note">
                {t(user.vip.cancelAtPeriodEnd ? 'account.ends' : 'account.renews', { date: formatDate(user.vip.renewsAt) })}
              </span>
            )}
          </dd>
        </div>
      </dl>
      {user?.vip && !user.vip.cancelAtPeriodEnd && (
        <button type="button" className="button button--ghost" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
          {t('account.cancel')}
        </button>
      )}
      {cancel.data && <p className="notice" role="status">{t('account.canceled', { date: formatDate(cancel.data.renewsAt) })}</p>}

      <h2 className="section-title">{t('account.orders')}</h2>
      {paymentsUnavailable ? (
        <p className="notice">{t('shop.unavailable')}</p>
      ) : orders.length === 0 ? (
        <p className="list-state">{payments.isPending ? t('list.loading') : t('account.noOrders')}</p>
      ) : (
        <ul className="orders">
          {orders.map((order) => (
            <li key={order.id} className="order-row">
              <span>{formatDate(order.createdAt)}</span>
              <span>{formatPrice(order.price.amount, order.price.currency)}</span>
              <span className={`status status--${order.status}`}>{t(orderStatusText(order.status))}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
