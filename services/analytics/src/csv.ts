import type { PlaybackRow, SummaryRow } from './reports.ts';

// A spreadsheet runs a cell that starts with one of these as a formula (CSV injection, OWASP): such a
// text cell is written with a leading apostrophe, which spreadsheets show as text.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; text never a formula. */
export function csvField(value: string | number): string {
  const text = typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV document: a header line, then a line per row, each ended by CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',') + '\r\n').join('');
}

/** The summary's columns; its Money becomes two columns, and every line names the attribution model. */
export const SUMMARY_COLUMNS = [
  'model',
  'key',
  'visits',
  'landings',
  'pageViews',
  'videoViews',
  'plays',
  'unlocks',
  'orders',
  'revenueAmount',
  'revenueCurrency',
  'revenueNetAmount',
  'revenueNetCurrency',
  'vipStarts',
  'vipCancels',
] as const;

export function summaryCsv(model: string, rows: readonly SummaryRow[]): string {
  return toCsv(
    SUMMARY_COLUMNS,
    rows.map((row) => [
      model,
      row.key,
      row.visits,
      row.landings,
      row.pageViews,
      row.videoViews,
      row.plays,
      row.unlocks,
      row.orders,
      row.revenue.amount,
      row.revenue.currency,
      row.revenueNet.amount,
      row.revenueNet.currency,
      row.vipStarts,
      row.vipCancels,
    ]),
  );
}

/** The playback report's columns; a ratio or percentile of nothing is an empty cell. */
export const PLAYBACK_COLUMNS = ['key', 'plays', 'startupMsP50', 'startupMsP95', 'rebufferRatio', 'rebufferCount', 'exitsBeforeStart', 'startFailures', 'errors'] as const;

export function playbackCsv(rows: readonly PlaybackRow[]): string {
  return toCsv(
    PLAYBACK_COLUMNS,
    rows.map((row) => PLAYBACK_COLUMNS.map((column) => row[column] ?? '')),
  );
}
