import { useNavigate } from 'react-router-dom';
import { ApiError } from '../../api/client';
import type { Plan } from '../../api/types';
import { CoinIcon, CrownIcon } from '../../components/Icons';
import { useT } from '../../i18n/I18nProvider';
import { formatDate, formatPrice } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useCurrentUser } from '../account/queries';
import { useCreateOrder, usePlans } from './queries';
import './shop.css';

/** /shopping: coin packs and VIP plans; choosing one creates an order and opens the card page. */
export function ShoppingPage() {
  const t = useT();
  const navigate = useNavigate();
  const user = useCurrentUser().data;
  const plans = usePlans();
  const order = useCreateOrder();
  useDocumentTitle(t('shop.title'));

  const unavailable =
    (plans.isError && !(plans.error instanceof ApiError && plans.error.code === 500)) ||
    (order.error instanceof ApiError && order.error.code === 404);
  const coinPlans = plans.data?.filter((plan) => plan.kind === 'coins') ?? [];
  const vipPlans = plans.data?.filter((plan) => plan.kind === 'vip') ?? [];

  const choose = (plan: Plan) =>
    order.mutate(plan.id, {
      onSuccess: (created) => navigate(`/order/easy?orderId=${encodeURIComponent(created.id)}&planId=${encodeURIComponent(plan.id)}`),
    });

  return (
    <div className="page shop">
      <header className="shop__head">
        <h1 className="page__title">{t('shop.title')}</h1>
        <p className="shop__subtitle">{t('shop.subtitle')}</p>
        <p className="shop__balance">
          <CoinIcon size={18} /> {t('shop.balance', { count: user?.coins ?? 0 })}
          {user?.vip && <span className="badge badge--vip">{t('account.renews', { date: formatDate(user.vip.renewsAt) })}</span>}
        </p>
      </header>
      {unavailable && <p className="notice" role="status">{t('shop.unavailable')}</p>}
      {plans.isPending && <p className="list-footer__text">{t('list.loading')}</p>}
      {plans.data && plans.data.length === 0 && <p className="list-state">{t('shop.noPlans')}</p>}

      {vipPlans.length > 0 && (
        <section aria-labelledby="vip-plans">
          <h2 id="vip-plans" className="section-title">
            <CrownIcon size={18} /> {t('shop.vip')}
          </h2>
          <ul className="plans">
            {vipPlans.map((plan) => (
              <li key={plan.id} className="plan plan--vip">
                <strong className="plan__title">{plan.title}</strong>
                <span className="plan__price">{formatPrice(plan.price.amount, plan.price.currency)}</span>
                {plan.periodDays && <span className="plan__note">{t('shop.every', { days: plan.periodDays })}</span>}
                <button type="button" className="button button--vip button--block" disabled={order.isPending || unavailable} onClick={() => choose(plan)}>
                  {t('shop.subscribe')}
                </button>
                {plan.periodDays && <p className="plan__terms">{t('shop.renewal', { days: plan.periodDays })}</p>}
              </li>
            ))}
          </ul>
        </section>
      )}

      {coinPlans.length > 0 && (
        <section aria-labelledby="coin-plans">
          <h2 id="coin-plans" className="section-title">
            <CoinIcon size={18} /> {t('shop.coins')}
          </h2>
          <ul className="plans plans--coins">
            {coinPlans.map((plan) => (
              <li key={plan.id} className="plan">
                <strong className="plan__coins">{t('shop.coinsAmount', { count: plan.coins ?? 0 })}</strong>
                <span className="plan__title">{plan.title}</span>
                <button type="button" className="button button--primary button--block" disabled={order.isPending || unavailable} onClick={() => choose(plan)}>
                  {t('shop.buy')} · {formatPrice(plan.price.amount, plan.price.currency)}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
