import { useConsoleI18n } from './i18n';

/** A filter form's `from` and `to` days (inclusive), as the address holds them (YYYY-MM-DD). */
export function DateRange({ from, to }: { from: string; to: string }) {
  const { t } = useConsoleI18n();
  return (
    <>
      <label>
        {t('orders.from')}
        <input name="from" type="date" defaultValue={from} />
      </label>
      <label>
        {t('orders.to')}
        <input name="to" type="date" defaultValue={to} />
      </label>
    </>
  );
}
