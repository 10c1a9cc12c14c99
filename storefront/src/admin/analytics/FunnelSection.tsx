import { useMemo } from 'react';
import type { Funnel } from '../api';
import { useConsoleI18n } from '../i18n';
import type { ConsoleKey } from '../texts';
import { BarChart } from './BarChart';

const STEPS: { step: keyof Funnel; label: ConsoleKey }[] = [
  { step: 'landed', label: 'funnel.landed' },
  { step: 'viewed', label: 'funnel.viewed' },
  { step: 'registered', label: 'funnel.registered' },
  { step: 'converted', label: 'funnel.converted' },
  { step: 'paid', label: 'funnel.paid' },
];

/** The users who first landed in the range, step by step to their first payment, each step's share of the landed. */
export function FunnelSection({ funnel }: { funnel: Funnel }) {
  const { t, locale } = useConsoleI18n();
  const number = useMemo(() => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }), [locale]);
  const percent = useMemo(() => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }), [locale]);
  const categories = useMemo(() => STEPS.map((entry) => t(entry.label)), [t]);
  const series = useMemo(() => [{ label: t('funnel.users'), values: STEPS.map((entry) => funnel[entry.step]) }], [funnel, t]);
  const format = useMemo(() => (value: number) => number.format(value), [number]);
  return (
    <section aria-labelledby="funnel-title">
      <h2 id="funnel-title">{t('funnel.title')}</h2>
      <p className="console-muted">{t('funnel.intro')}</p>
      <BarChart categories={categories} series={series} label={t('funnel.chart')} format={format} />
      <div className="console-table-wrap">
        <table className="console-table" aria-labelledby="funnel-title">
          <thead>
            <tr>
              <th scope="col">{t('funnel.step')}</th>
              <th scope="col">{t('funnel.users')}</th>
              <th scope="col">{t('funnel.share')}</th>
            </tr>
          </thead>
          <tbody>
            {STEPS.map((entry) => (
              <tr key={entry.step}>
                <th scope="row">{t(entry.label)}</th>
                <td>{number.format(funnel[entry.step])}</td>
                <td>{funnel.landed ? percent.format(funnel[entry.step] / funnel.landed) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
