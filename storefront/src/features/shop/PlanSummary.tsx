import type { Plan } from '../../api/types';
import { useT } from '../../i18n/I18nProvider';
import { formatPrice } from '../../lib/format';
import { planContents } from './planText';

/** The plan being paid for, above the card form: what it gives, the total, and for VIP the renewal terms. */
export function PlanSummary({ plan }: { plan: Plan }) {
  const t = useT();
  return (
    <section className="checkout__summary" aria-label={t('order.summary')}>
      <span className="checkout__plan">
        <strong>{plan.title}</strong>
        <span>{t(...planContents(plan))}</span>
      </span>
      <span>
        {t('order.total')} <strong>{formatPrice(plan.price.amount, plan.price.currency)}</strong>
      </span>
      {plan.kind === 'vip' && plan.periodDays ? <p className="plan__terms">{t('shop.renewal', { days: plan.periodDays })}</p> : null}
    </section>
  );
}
