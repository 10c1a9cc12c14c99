import { Link } from 'react-router-dom';
import { usePayments } from '../../api/paymentQueries';
import { useCurrentUser } from '../../api/userQueries';
import { useT } from '../../i18n/I18nProvider';
import { formatDate, formatPrice } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { orderStatusText } from './orderStatus';
import './account.css';

/** /individual: the account's details, its subscription and its orders. */
export function IndividualPage() {
  const t = useT();
  const user = useCurrentUser().data;
  const payments = usePayments();
  useDocumentTitle(t('account.details'));
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
          <dd>
            {user?.coins ?? 0}
            {user && user.bonusCoins > 0 && <span className="details__note">{t('shop.bonusPart', { count: user.bonusCoins })}</span>}
          </dd>
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
      {user?.vip && (
        <Link to="/shopping" className="button button--ghost">
          {t('account.manage')}
        </Link>
      )}

      <h2 className="section-title">{t('account.orders')}</h2>
      {orders.length === 0 ? (
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
