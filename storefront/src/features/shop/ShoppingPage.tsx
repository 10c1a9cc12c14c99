import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import type { Plan } from '../../api/types';
import { useCurrentUser } from '../../api/userQueries';
import { CheckinCard } from '../../components/CheckinCard';
import { CoinIcon, CrownIcon } from '../../components/Icons';
import { useT } from '../../i18n/I18nProvider';
import { formatDate, formatPrice } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { CurrentPlan } from './CurrentPlan';
import { periodText } from './planText';
import { usePastDueSubscription, usePlans } from './queries';
import { RenewCard } from './RenewCard';
import './shop.css';

// The first-purchase offer leads the coin packs; the rest keep the order the plan list gives.
const offerFirst = (a: Plan, b: Plan) => Number(Boolean(b.firstPurchaseOnly)) - Number(Boolean(a.firstPurchaseOnly));

/**
 * /shopping: the wallet, the daily check-in, the current VIP plan with cancel and resume, VIP plans and coin packs.
 * Choosing a plan opens /order/easy?planId=, which makes the order when the user pays.
 * /shopping#vip and /shopping#coins (the unlock sheet's links) open at that section. A VIP whose renewal
 * failed (the failed-renewal mail links here) is asked for a new card first.
 */
export function ShoppingPage() {
  const t = useT();
  const navigate = useNavigate();
  const { hash } = useLocation();
  const user = useCurrentUser().data;
  const plans = usePlans();
  useDocumentTitle(t('shop.title'));

  const coinPlans = (plans.data?.filter((plan) => plan.kind === 'coins') ?? []).sort(offerFirst);
  const vipPlans = plans.data?.filter((plan) => plan.kind === 'vip') ?? [];
  const vip = user?.vip ?? null;
  const loaded = Boolean(plans.data);
  const pastDue = usePastDueSubscription();
  const [renewedUntil, setRenewedUntil] = useState<string | null>(null);
  const asksForCard = Boolean(pastDue);

  useEffect(() => {
    if (loaded && hash) document.getElementById(hash.slice(1))?.scrollIntoView?.({ block: 'start' });
  }, [loaded, hash, asksForCard]);

  const choose = (plan: Plan) => navigate(`/order/easy?planId=${encodeURIComponent(plan.id)}`);

  return (
    <div className="page shop">
      <header className="shop__head">
        <h1 className="page__title">{t('shop.title')}</h1>
        <p className="shop__subtitle">{t('shop.subtitle')}</p>
        <p className="shop__balance">
          <CoinIcon size={18} /> {t('shop.balance', { count: user?.coins ?? 0 })}
          {user && user.bonusCoins > 0 && <span className="shop__bonus">{t('shop.bonusPart', { count: user.bonusCoins })}</span>}
        </p>
      </header>

      <CheckinCard />

      {renewedUntil && (
        <p className="notice notice--success" role="status">
          {t('renew.succeeded', { date: formatDate(renewedUntil) })}
        </p>
      )}
      {pastDue && (
        <RenewCard
          subscription={pastDue}
          planTitle={plans.data?.find((plan) => plan.id === pastDue.planId)?.title}
          onRenewed={(subscription) => setRenewedUntil(subscription.renewsAt)}
        />
      )}
      {vip && !pastDue && <CurrentPlan vip={vip} planTitle={plans.data?.find((plan) => plan.id === vip.planId)?.title} />}

      {plans.isPending && <p className="list-footer__text">{t('list.loading')}</p>}
      {plans.isError && (
        <div className="list-state">
          <p>{t('list.error')}</p>
          <button type="button" className="button button--ghost" onClick={() => void plans.refetch()}>
            {t('list.retry')}
          </button>
        </div>
      )}
      {plans.data && plans.data.length === 0 && <p className="list-state">{t('shop.noPlans')}</p>}

      {vipPlans.length > 0 && (
        <section id="vip" aria-labelledby="vip-plans">
          <h2 id="vip-plans" className="section-title">
            <CrownIcon size={18} /> {t('shop.vip')}
          </h2>
          <p className="shop__section-hint">{vip ? t('shop.alreadyVip') : t('unlock.subscribeHint')}</p>
          <ul className="plans">
            {vipPlans.map((plan) => (
              <li key={plan.id} className={`plan plan--vip ${vip?.planId === plan.id ? 'plan--current' : ''}`}>
                {vip?.planId === plan.id && <span className="plan__ribbon">{t('shop.currentPlan')}</span>}
                <strong className="plan__title">{plan.title}</strong>
                <span className="plan__price">{formatPrice(plan.price.amount, plan.price.currency)}</span>
                {plan.periodDays ? <span className="plan__note">{t(...periodText(plan.periodDays))}</span> : null}
                <button
                  type="button"
                  className="button button--vip button--block"
                  aria-label={`${t('shop.subscribe')}: ${plan.title}`}
                  disabled={Boolean(vip)}
                  onClick={() => choose(plan)}
                >
                  {t('shop.subscribe')}
                </button>
                {plan.periodDays ? <p className="plan__terms">{t('shop.renewal', { days: plan.periodDays })}</p> : null}
              </li>
            ))}
          </ul>
        </section>
      )}

      {coinPlans.length > 0 && (
        <section id="coins" aria-labelledby="coin-plans">
          <h2 id="coin-plans" className="section-title">
            <CoinIcon size={18} /> {t('shop.coins')}
          </h2>
          <ul className="plans plans--coins">
            {coinPlans.map((plan) => (
              <li key={plan.id} className={`plan ${plan.firstPurchaseOnly ? 'plan--offer' : ''}`}>
                {plan.firstPurchaseOnly && <span className="plan__ribbon">{t('shop.firstPurchase')}</span>}
                <strong className="plan__coins">{t('shop.coinsAmount', { count: plan.coins ?? 0 })}</strong>
                {plan.bonusCoins ? <span className="plan__bonus">{t('shop.bonus', { count: plan.bonusCoins })}</span> : null}
                {/* A pack called by its number of coins says it once, above; an operator's own name shows. */}
                {plan.title.replace(/\D/g, '') !== String(plan.coins) && <span className="plan__title">{plan.title}</span>}
                {plan.firstPurchaseOnly && <span className="plan__note">{t('shop.firstPurchaseHint')}</span>}
                <button type="button" className="button button--primary button--block" onClick={() => choose(plan)}>
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
