import type { Plan } from '../../api/types';
import type { MessageKey } from '../../i18n/en';
import type { Vars } from '../../i18n/translate';

/** A VIP plan's period as people say it: "per week", "per month", "per year", else "every N days". */
export function periodText(periodDays: number): [MessageKey, Vars?] {
  if (periodDays === 7) return ['shop.perWeek'];
  if (periodDays === 30) return ['shop.perMonth'];
  if (periodDays === 365) return ['shop.perYear'];
  return ['shop.every', { days: periodDays }];
}

/** What a plan gives: "500 coins + 50 bonus" for a coin pack, the period for VIP. */
export function planContents(plan: Plan): [MessageKey, Vars?] {
  if (plan.kind === 'vip') return periodText(plan.periodDays ?? 0);
  return plan.bonusCoins ? ['shop.coinsWithBonus', { count: plan.coins ?? 0, bonus: plan.bonusCoins }] : ['shop.coinsAmount', { count: plan.coins ?? 0 }];
}
