import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { admin, formatMoney, reportCsvUrl, type DayRange, type SummaryRow } from '../api';
import { useConsoleI18n } from '../i18n';
import { QueryStates } from '../QueryStates';
import type { ConsoleKey } from '../texts';
import { BarChart } from './BarChart';
import { CsvLink } from './CsvLink';

const DIMENSIONS = ['campaign', 'clickId', 'referrer'] as const;
type Dimension = (typeof DIMENSIONS)[number];
const MODELS = ['first', 'last'] as const;
const CHARTED = 10;

export interface TouchRow {
  key: string;
  first: SummaryRow | undefined;
  last: SummaryRow | undefined;
}

/** The keys of both models side by side: last touch's order (the most landings first), then keys only first touch has. */
export function sideBySide(first: SummaryRow[], last: SummaryRow[]): TouchRow[] {
  const firstByKey = new Map(first.map((row) => [row.key, row]));
  const lastKeys = new Set(last.map((row) => row.key));
  return [
    ...last.map((row) => ({ key: row.key, first: firstByKey.get(row.key), last: row })),
    ...first.filter((row) => !lastKeys.has(row.key)).map((row) => ({ key: row.key, first: row, last: undefined })),
  ];
}

/**
 * What each campaign, ad click id or referrer brought (GET /api/admin/analytics/summary?by=...),
 * credited by first touch and by last touch side by side: landings, orders and net revenue.
 */
export function CampaignsSection({ range }: { range: DayRange }) {
  const { t, locale } = useConsoleI18n();
  const [by, setBy] = useState<Dimension>('campaign');
  const reports = useQuery({
    queryKey: ['admin', 'campaigns', by, range],
    queryFn: async () => {
      const [first, last] = await Promise.all(MODELS.map((model) => admin.summary(range.from, range.to, by, model)));
      return sideBySide(first!.rows, last!.rows);
    },
  });
  const dollars = useMemo(() => {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 0, maximumFractionDigits: 2 });
    return (amount: number) => format.format(amount);
  }, [locale]);
  const charted = useMemo(() => reports.data?.slice(0, CHARTED) ?? [], [reports.data]);
  const categories = useMemo(() => charted.map((row) => row.key), [charted]);
  const series = useMemo(
    () => MODELS.map((model) => ({ label: t(`campaigns.${model}` as ConsoleKey), values: charted.map((row) => (row[model]?.revenueNet?.amount ?? 0) / 100) })),
    [charted, t],
  );
  const cells = (row: SummaryRow | undefined, model: (typeof MODELS)[number]) => {
    const label = (key: ConsoleKey) => `${t(`campaigns.${model}` as ConsoleKey)} · ${t(key)}`;
    return (
      <>
        <td data-label={label('campaigns.landings')}>{row?.landings ?? 0}</td>
        <td data-label={label('analytics.orders')}>{row?.orders ?? 0}</td>
        <td data-label={label('campaigns.net')}>{formatMoney(row?.revenueNet ?? row?.revenue ?? { amount: 0, currency: 'USD' }, locale)}</td>
      </>
    );
  };

  return (
    <section aria-labelledby="campaigns-title">
      <h2 id="campaigns-title">{t('campaigns.title')}</h2>
      <p className="console-muted">{t('campaigns.intro')}</p>
      <div className="console-filters">
        <label>
          {t('campaigns.by')}
          <select value={by} onChange={(event) => setBy(event.target.value as Dimension)}>
            {DIMENSIONS.map((dimension) => (
              <option key={dimension} value={dimension}>
                {t(`campaigns.by.${dimension}` as ConsoleKey)}
              </option>
            ))}
          </select>
        </label>
        {MODELS.map((model) => (
          <CsvLink
            key={model}
            href={reportCsvUrl('summary', { ...range, by, model })}
            fileName={`analytics-summary-${by}-${model}-${range.from}-${range.to}.csv`}
          >
            {t('campaigns.csv', { model: t(`campaigns.${model}` as ConsoleKey) })}
          </CsvLink>
        ))}
      </div>
      <QueryStates query={reports} empty={t('campaigns.none')}>
        {(data) => (
          <>
            <BarChart categories={categories} series={series} label={t('campaigns.chart', { count: charted.length })} format={dollars} />
            <div className="console-table-wrap">
              <table className="console-table console-table--cards" aria-labelledby="campaigns-title">
                <thead>
                  <tr>
                    <td />
                    {MODELS.map((model) => (
                      <th key={model} scope="colgroup" colSpan={3}>
                        {t(`campaigns.${model}` as ConsoleKey)}
                      </th>
                    ))}
                  </tr>
                  <tr>
                    <th scope="col">{t(`campaigns.by.${by}` as ConsoleKey)}</th>
                    {MODELS.map((model) => (
                      <ColumnNames key={model} />
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {data.map((row) => (
                    <tr key={row.key}>
                      <th scope="row" data-label={t(`campaigns.by.${by}` as ConsoleKey)}>
                        {row.key}
                      </th>
                      {cells(row.first, 'first')}
                      {cells(row.last, 'last')}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </QueryStates>
    </section>
  );
}

function ColumnNames() {
  const { t } = useConsoleI18n();
  return (
    <>
      <th scope="col">{t('campaigns.landings')}</th>
      <th scope="col">{t('analytics.orders')}</th>
      <th scope="col">{t('campaigns.net')}</th>
    </>
  );
}
