import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { admin, reportCsvUrl, type DayRange, type PlaybackDimension } from '../api';
import { useConsoleI18n } from '../i18n';
import { QueryStates } from '../QueryStates';
import { BarChart } from './BarChart';
import { CsvLink } from './CsvLink';

const DIMENSIONS: PlaybackDimension[] = ['episode', 'rung'];
const CHARTED = 10;

/**
 * Playback quality (GET /api/admin/analytics/playback) by episode or by rung: plays, startup time,
 * rebuffering, and the plays that failed or were left before their first frame.
 */
export function PlaybackSection({ range }: { range: DayRange }) {
  const { t, locale } = useConsoleI18n();
  const [by, setBy] = useState<PlaybackDimension>('episode');
  const rows = useQuery({ queryKey: ['admin', 'playback', by, range], queryFn: () => admin.playback(range.from, range.to, by) });
  const number = useMemo(() => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }), [locale]);
  const percent = useMemo(() => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }), [locale]);
  const charted = useMemo(() => rows.data?.slice(0, CHARTED) ?? [], [rows.data]);
  const categories = useMemo(() => charted.map((row) => row.key), [charted]);
  const series = useMemo(
    () => [
      { label: t('playback.plays'), values: charted.map((row) => row.plays) },
      { label: t('playback.errors'), values: charted.map((row) => row.errors) },
    ],
    [charted, t],
  );
  const format = useMemo(() => (value: number) => number.format(value), [number]);
  const ms = (value: number | null) => (value === null ? '—' : t('playback.ms', { ms: number.format(value) }));
  const columns = [
    t('playback.plays'),
    t('playback.startupP50'),
    t('playback.startupP95'),
    t('playback.rebufferRatio'),
    t('playback.stalls'),
    t('playback.exits'),
    t('playback.startFailures'),
    t('playback.errors'),
  ];
  const keyName = t(by === 'episode' ? 'playback.by.episode' : 'playback.by.rung');

  return (
    <section aria-labelledby="playback-title">
      <h2 id="playback-title">{t('playback.title')}</h2>
      <div className="console-filters">
        <label>
          {t('playback.by')}
          <select value={by} onChange={(event) => setBy(event.target.value as PlaybackDimension)}>
            {DIMENSIONS.map((dimension) => (
              <option key={dimension} value={dimension}>
                {t(dimension === 'episode' ? 'playback.by.episode' : 'playback.by.rung')}
              </option>
            ))}
          </select>
        </label>
        <CsvLink href={reportCsvUrl('playback', { ...range, by })} fileName={`analytics-playback-${by}-${range.from}-${range.to}.csv`}>
          {t('playback.csv')}
        </CsvLink>
      </div>
      <QueryStates query={rows} empty={t('playback.none')}>
        {(data) => (
          <>
            <BarChart categories={categories} series={series} label={t('playback.chart', { count: charted.length })} format={format} />
            <div className="console-table-wrap">
              <table className="console-table console-table--cards" aria-labelledby="playback-title">
                <thead>
                  <tr>
                    <th scope="col">{keyName}</th>
                    {columns.map((column) => (
                      <th key={column} scope="col">
                        {column}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {data.map((row) => {
                    const values = [
                      number.format(row.plays),
                      ms(row.startupMsP50),
                      ms(row.startupMsP95),
                      row.rebufferRatio === null ? '—' : percent.format(row.rebufferRatio),
                      number.format(row.rebufferCount),
                      number.format(row.exitsBeforeStart),
                      number.format(row.startFailures),
                      number.format(row.errors),
                    ];
                    return (
                      <tr key={row.key}>
                        <th scope="row" data-label={keyName}>
                          <code>{row.key}</code>
                        </th>
                        {values.map((value, index) => (
                          <td key={columns[index]} data-label={columns[index]}>
                            {value}
                          </td>
                        ))}
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </>
        )}
      </QueryStates>
    </section>
  );
}
