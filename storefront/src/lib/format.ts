// Made on the first date shown, not as the app loads: a formatter costs more than the rest of the
// app's first chunk takes to run.
let longDate: Intl.DateTimeFormat | null = null;

/** Dates are shown in US English as day, long month and year; bad input reads "Invalid Date". */
export function formatDate(input: string | number | Date | null | undefined): string {
  if (input === null || input === undefined || input === '') return 'Invalid Date';
  const date = input instanceof Date ? input : new Date(input);
  longDate ??= new Intl.DateTimeFormat('en-US', { day: 'numeric', month: 'long', year: 'numeric' });
  return Number.isNaN(date.getTime()) ? 'Invalid Date' : longDate.format(date);
}

/** The two-digit helper: pads or truncates to 2 characters, "00" when there is nothing. */
export function twoDigits(value?: string | number | null): string {
  if (value === null || value === undefined || value === '') return '00';
  return String(value).padStart(2, '0').slice(0, 2);
}

/** Clock time of a media position, e.g. 75 → "01:15", 3725 → "1:02:05". */
export function formatClock(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(Number.isFinite(totalSeconds) ? totalSeconds : 0));
  const hours = Math.floor(seconds / 3600);
  const minutes = twoDigits(Math.floor((seconds % 3600) / 60));
  const rest = twoDigits(seconds % 60);
  return hours > 0 ? `${hours}:${minutes}:${rest}` : `${minutes}:${rest}`;
}

export interface Money {
  amount: number;
  currency: string;
}

const CURRENCY_SYMBOLS: Record<string, string> = { USD: '$' };

/** Prices are integer minor units: divided by 100, two decimals, shown in USD. */
export function formatPrice(minorUnits: number, currency = 'USD'): string {
  const symbol = CURRENCY_SYMBOLS[currency] ?? `${currency} `;
  const major = (Number.isFinite(minorUnits) ? minorUnits : 0) / 100;
  return `${symbol}${major.toFixed(2)}`;
}

/** Compact counts for play counts: 950 → "950", 12_300 → "12.3K", 2_400_000 → "2.4M". */
export function formatCount(count: number): string {
  if (!Number.isFinite(count) || count < 1000) return String(Math.max(0, Math.floor(count || 0)));
  if (count < 1_000_000) return `${trimDecimal(count / 1000)}K`;
  return `${trimDecimal(count / 1_000_000)}M`;
}

function trimDecimal(value: number): string {
  return (Math.floor(value * 10) / 10).toFixed(1).replace(/\.0$/, '');
}
