import type { SummaryRow } from './reports.ts';

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

/** The summary's columns; its Money becomes two columns. */
export const SUMMARY_COLUMNS = ['key', 'landings', 'videoViews', 'plays', 'unlocks', 'orders', 'revenueAmount', 'revenueCurrency', 'vipStarts', 'vipCancels'] as const;

export function summaryCsv(rows: readonly SummaryRow[]): string {
  return toCsv(
    SUMMARY_COLUMNS,
    rows.map((row) => [row.key, row.landings, row.videoViews, row.plays, row.unlocks, row.orders, row.revenue.amount, row.revenue.currency, row.vipStarts, row.vipCancels]),
  );
}
