import { useId, useState, type FormEvent } from 'react';
import { AdminError, type AdminPlan, type NewPlan, type PlanFields } from '../api';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';
import { fieldHints } from '../fieldHints';

type FieldName = 'id' | 'kind' | 'title' | 'price' | 'coins' | 'bonusCoins' | 'periodDays' | 'periodMonths' | 'position' | 'active';
type Problems = Partial<Record<FieldName, string>>;

/** A whole number from 0 (null for anything else); an empty field is `empty`. */
function wholeNumber(value: FormDataEntryValue | null, empty: number | undefined | null = null): number | undefined | null {
  const text = String(value ?? '').trim();
  if (!text) return empty;
  return /^\d{1,7}$/.test(text) ? Number(text) : null;
}

/** A price typed in dollars ("4.99", "4,99", "5") as cents; null for anything else. */
export function centsOf(value: FormDataEntryValue | null): number | null {
  const match = /^(\d{1,6})(?:[.,](\d{1,2}))?$/.exec(String(value ?? '').trim());
  return match ? Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0')) : null;
}

/** The API's field errors by form field: `price.amount` is the price's, a taken id (409) the id's. */
function problemsOf(error: unknown): Problems {
  if (!(error instanceof AdminError)) return {};
  if (error.code === 409 && !Object.keys(error.fields).length) return { id: error.message };
  const problems: Problems = {};
  for (const [field, message] of Object.entries(error.fields)) problems[field.split('.')[0] as FieldName] ??= message;
  return problems;
}

/**
 * A plan's fields: for a new plan (`plan` absent) also its id, kind and calendar months, which stay
 * as made. Checked here first (a price of at least 50 cents, a coin pack's coins, a VIP plan's
 * days); the API's own refusals show beside the field they name. An edit sends only what changed.
 */
export function PlanForm({
  plan,
  pending,
  error,
  onCreate,
  onUpdate,
}: {
  plan?: AdminPlan;
  pending: boolean;
  error: unknown;
  onCreate: (plan: NewPlan) => void;
  onUpdate: (changes: Partial<PlanFields>) => void;
}) {
  const { t } = useConsoleI18n();
  const id = useId();
  const [kind, setKind] = useState<'coins' | 'vip'>(plan?.kind ?? 'coins');
  const [local, setLocal] = useState<Problems>({});
  const checking = Object.keys(local).length > 0;
  const problems: Problems = checking ? local : problemsOf(error);
  const shownError = checking || Object.keys(problemsOf(error)).length ? null : error;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const found: Problems = {};
    const title = String(form.get('title') ?? '').trim();
    const price = centsOf(form.get('price'));
    const position = wholeNumber(form.get('position'), 0);
    const coins = kind === 'coins' ? wholeNumber(form.get('coins')) : undefined;
    const bonusCoins = kind === 'coins' ? wholeNumber(form.get('bonusCoins'), 0) : undefined;
    const periodDays = kind === 'vip' ? wholeNumber(form.get('periodDays')) : undefined;
    const periodMonths = kind === 'vip' && !plan ? wholeNumber(form.get('periodMonths'), undefined) : undefined;
    const newId = String(form.get('id') ?? '').trim();
    if (!plan && !/^[a-z0-9][a-z0-9-]{0,59}$/.test(newId)) found.id = t('plans.idInvalid');
    if (!title) found.title = t('content.titleRequired');
    if (price === null || price < 50) found.price = t('plans.priceInvalid');
    if (kind === 'coins' && (coins === null || coins === undefined || coins < 1)) found.coins = t('plans.coinsInvalid');
    if (bonusCoins === null) found.bonusCoins = t('content.numberInvalid');
    if (kind === 'vip' && (periodDays === null || periodDays === undefined || periodDays < 1)) found.periodDays = t('plans.daysInvalid');
    if (periodMonths === null || periodMonths === 0) found.periodMonths = t('plans.daysInvalid');
    if (position === null) found.position = t('content.numberInvalid');
    setLocal(found);
    if (Object.keys(found).length) return;
    const fields: PlanFields = {
      title,
      price: { amount: price! },
      ...(kind === 'coins' ? { coins: coins!, bonusCoins: bonusCoins! } : { periodDays: periodDays! }),
      position: position!,
      active: form.get('active') === 'on',
    };
    if (!plan) return onCreate({ id: newId, kind, ...fields, ...(periodMonths ? { periodMonths } : {}) });
    const before: PlanFields = {
      title: plan.title,
      price: { amount: plan.price.amount },
      ...(plan.kind === 'coins' ? { coins: plan.coins, bonusCoins: plan.bonusCoins ?? 0 } : { periodDays: plan.periodDays }),
      position: plan.position,
      active: plan.active,
    };
    const changes = Object.fromEntries(Object.entries(fields).filter(([name, value]) => JSON.stringify(value) !== JSON.stringify(before[name as keyof PlanFields])));
    onUpdate(changes);
  };

  const { problemOf, described } = fieldHints<FieldName>(id, problems);

  return (
    <form className="console-form" onSubmit={submit} noValidate>
      {!plan && (
        <>
          <label>
            {t('plans.id')}
            <input name="id" autoComplete="off" maxLength={60} required {...described('id')} />
          </label>
          {problemOf('id')}
          <label>
            {t('plans.kind')}
            <select name="kind" value={kind} onChange={(event) => setKind(event.target.value as 'coins' | 'vip')}>
              <option value="coins">{t('plans.kind.coins')}</option>
              <option value="vip">{t('plans.kind.vip')}</option>
            </select>
          </label>
          {problemOf('kind')}
        </>
      )}
      <label>
        {t('content.fieldTitle')}
        <input name="title" defaultValue={plan?.title ?? ''} maxLength={100} required {...described('title')} />
      </label>
      {problemOf('title')}
      <label>
        {t('plans.price')}
        <input name="price" inputMode="decimal" defaultValue={plan ? (plan.price.amount / 100).toFixed(2) : ''} required {...described('price')} />
      </label>
      {problemOf('price')}
      {kind === 'coins' ? (
        <>
          <label>
            {t('plans.coins')}
            <input name="coins" inputMode="numeric" defaultValue={plan?.coins ?? ''} required {...described('coins')} />
          </label>
          {problemOf('coins')}
          <label>
            {t('plans.bonusCoins')}
            <input name="bonusCoins" inputMode="numeric" defaultValue={plan?.bonusCoins ?? 0} {...described('bonusCoins')} />
          </label>
          {problemOf('bonusCoins')}
        </>
      ) : (
        <>
          <label>
            {t('plans.periodDays')}
            <input name="periodDays" inputMode="numeric" defaultValue={plan?.periodDays ?? 30} required {...described('periodDays')} />
          </label>
          {problemOf('periodDays')}
          {!plan && (
            <>
              <label>
                {t('plans.periodMonths')}
                <input name="periodMonths" inputMode="numeric" aria-describedby={`${id}-months`} {...described('periodMonths')} />
              </label>
              <span id={`${id}-months`} className="console-muted">
                {t('plans.periodMonthsHint')}
              </span>
              {problemOf('periodMonths')}
            </>
          )}
        </>
      )}
      <label>
        {t('plans.position')}
        <input name="position" inputMode="numeric" defaultValue={plan?.position ?? 0} {...described('position')} />
      </label>
      {problemOf('position')}
      <label className="console-inline">
        <input type="checkbox" name="active" defaultChecked={plan ? plan.active : true} />
        {t('plans.onSale')}
      </label>
      {problemOf('active')}
      <div>
        <button type="submit" className="console-button console-button--primary" disabled={pending}>
          {plan ? t('content.save') : t('plans.create')}
        </button>
      </div>
      {Boolean(shownError) && <ErrorState error={shownError} />}
    </form>
  );
}
