import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { admin, formatMoney, reportCsvUrl, type DayRange } from '../api';
import { useConsoleI18n } from '../i18n';
import { QueryStates } from '../QueryStates';
import { CampaignsSection } from './CampaignsSection';
import { CsvLink } from './CsvLink';
import { FunnelSection } from './FunnelSection';
import { PlaybackSection } from './PlaybackSection';
import { RevenueChart, type RevenueSeries } from './RevenueChart';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** Every day from `from` to `to`, a day without a row at zero (the API lists only days with something in them). */
export function revenueSeries(rows: { key: string; revenue: { amount: number }; revenueNet?: { amount: number } }[], from: string, to: string): RevenueSeries {
  const byDay = new Map(rows.map((row) => [row.key.slice(0, 10), row]));
  const series: RevenueSeries = { days: [], gross: [], net: [] };
  for (let day = new Date(`${from}T00:00:00Z`); isoDay(day) <= to && series.days.length < 400; day.setUTCDate(day.getUTCDate() + 1)) {
    const row = byDay.get(isoDay(day));
    series.days.push(day.getTime() / 1000);
    series.gross.push((row?.revenue.amount ?? 0) / 100);
    series.net.push((row?.revenueNet?.amount ?? row?.revenue.amount ?? 0) / 100);
  }
  return series;
}

/**
 * The analyst's dashboards over one range of days: revenue per day, gross and net, with orders
 * (GET /api/admin/analytics/summary?by=day); the funnel that answer carries; campaigns by first and
 * last touch; playback quality. Each with its CSV.
 */
export default function AnalyticsPage() {
  const { t, locale } = useConsoleI18n();
  const [range, setRange] = useState<DayRange>(() => {
    const to = new Date();
    const from = new Date(to.getTime() - 29 * 86_400_000);
    return { from: isoDay(from), to: isoDay(to) };
  });
  const summary = useQuery({ queryKey: ['admin', 'summary', range], queryFn: () => admin.summary(range.from, range.to) });
  const series = useMemo(() => (summary.data ? revenueSeries(summary.data.rows, range.from, range.to) : null), [summary.data, range]);
  const money = useMemo(() => {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 0, maximumFractionDigits: 2 });
    return (amount: number) => format.format(amount);
  }, [locale]);
  const labels = useMemo(() => ({ day: t('analytics.day'), gross: t('analytics.gross'), net: t('analytics.net') }), [t]);

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const from = String(form.get('from') ?? '');
    const to = String(form.get('to') ?? '');
    if (from && to && from <= to) setRange({ from, to });
  };

  const totals = summary.data?.rows.reduce(
    (sum, row) => ({ gross: sum.gross + row.revenue.amount, net: sum.net + (row.revenueNet?.amount ?? row.revenue.amount), orders: sum.orders + row.orders }),
    { gross: 0, net: 0, orders: 0 },
  );
  return (
    <section aria-labelledby="analytics-page-title">
      <h1 id="analytics-page-title" className="console-visually-hidden">
        {t('nav.analytics')}
      </h1>
      <form className="console-filters" onSubmit={apply} aria-label={t('analytics.range')}>
        <label>
          {t('analytics.from')}
          <input name="from" type="date" defaultValue={range.from} />
        </label>
        <label>
          {t('analytics.to')}
          <input name="to" type="date" defaultValue={range.to} />
        </label>
        <button type="submit" className="console-button console-button--primary">
          {t('orders.submit')}
        </button>
      </form>
      <section aria-labelledby="analytics-title">
        <h2 id="analytics-title">{t('analytics.title')}</h2>
        <div className="console-filters">
          <CsvLink href={reportCsvUrl('summary', { ...range, by: 'day' })} fileName={`analytics-summary-day-${range.from}-${range.to}.csv`}>
            {t('analytics.csv')}
          </CsvLink>
        </div>
        <QueryStates query={summary}>
          {(data) => (
            <>
              {totals && (
                <p>
                  {t('analytics.total', {
                    gross: formatMoney({ amount: totals.gross, currency: 'USD' }, locale),
                    net: formatMoney({ amount: totals.net, currency: 'USD' }, locale),
                    orders: totals.orders,
                  })}
                </p>
              )}
              {series && <RevenueChart data={series} labels={labels} label={t('analytics.chart')} format={money} />}
              <details className="console-details">
                <summary>{t('analytics.table')}</summary>
                <div className="console-table-wrap">
                  <table className="console-table">
                    <thead>
                      <tr>
                        <th scope="col">{t('analytics.day')}</th>
                        <th scope="col">{t('analytics.gross')}</th>
                        <th scope="col">{t('analytics.net')}</th>
                        <th scope="col">{t('analytics.orders')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.rows.map((row) => (
                        <tr key={row.key}>
                          <td>{row.key}</td>
                          <td>{formatMoney(row.revenue, locale)}</td>
                          <td>{formatMoney(row.revenueNet ?? row.revenue, locale)}</td>
                          <td>{row.orders}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </details>
            </>
          )}
        </QueryStates>
      </section>
      {summary.data?.funnel && <FunnelSection funnel={summary.data.funnel} />}
      <CampaignsSection range={range} />
      <PlaybackSection range={range} />
    </section>
  );
}
