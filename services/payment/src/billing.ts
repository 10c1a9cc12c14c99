import type { SubscriptionRow } from './repository.ts';

/**
 * When renewals happen: the period arithmetic, the retry schedule and the grace period. Plain
 * functions of dates, so the rules read in one place and tests need no database to check them.
 */

export const DAY_MS = 86_400_000;
export const addDays = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);

/**
 * Days after the first failed renewal on which its card is tried again: with the first try, 8 tries
 * over 14 days, as Stripe's Smart Retries recommend. A hard decline (lost, stolen, fraudulent, a wrong
 * number, a closed account) is never retried; after the last try the subscription expires.
 */
export const RETRY_DAYS = [1, 2, 4, 6, 8, 11, 14];

/** Days a past-due VIP keeps access while its card is retried, unless `PAYMENT_GRACE_DAYS` says otherwise. */
export const GRACE_DAYS_DEFAULT = 7;

/** The reminder before a renewal of a plan of a month or more. */
export const REMINDER_DAYS_BEFORE = 3;

/** A period's length: whole calendar months (monthly, yearly) or days (weekly). */
export interface Term {
  periodDays: number;
  periodMonths: number | null;
}

/**
 * `months` calendar months after `from`, on `day` of that month (clamped to its last day), at the
 * same UTC time of day: Jan 31 + 1 month on day 31 is Feb 28 (29), + 1 more is Mar 31.
 */
export function addMonthsOnDay(from: Date, months: number, day: number): Date {
  const year = from.getUTCFullYear();
  const month = from.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(day, lastDay), from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
}

/** When a period that starts at `from` ends: on the billing day `periodMonths` later, or `periodDays` later. */
export function periodEnd(from: Date, term: Term, billingDay: number | null): Date {
  if (!term.periodMonths) return addDays(from, term.periodDays);
  return addMonthsOnDay(from, term.periodMonths, billingDay ?? from.getUTCDate());
}

/** The next try of a renewal that failed `failures` times since `firstFailedAt`; null when none is left. */
export function nextRetryAt(firstFailedAt: Date, failures: number): Date | null {
  const days = RETRY_DAYS[failures - 1];
  return days === undefined ? null : addDays(firstFailedAt, days);
}

/**
 * Until when a live subscription gives VIP: its period's end, and while past due (renewal failed,
 * retries going on) `graceDays` beyond it; then access pauses until a retry or a new card pays.
 */
export function accessUntil(sub: Pick<SubscriptionRow, 'status' | 'renewsAt'>, graceDays: number): Date {
  return sub.status === 'past_due' ? addDays(sub.renewsAt, graceDays) : sub.renewsAt;
}
