/** Calendar days as a viewer lives them: in their IANA time zone, as `YYYY-MM-DD`. */

const DAY_MS = 86_400_000;

/** The viewer's zone when it names one the runtime knows (`Europe/Paris`); UTC otherwise, as docs/api.md's default. */
export function zoneOrUtc(name: string | undefined): string {
  if (!name || name.length > 64) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
}

const dayFormatOf = (zone: string) => new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });

function dayOf(format: Intl.DateTimeFormat, at: Date): string {
  const parts = format.formatToParts(at);
  const part = (type: string) => parts.find((entry) => entry.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The calendar day of `at` in `zone`. */
export const dayIn = (zone: string, at: Date): string => dayOf(dayFormatOf(zone), at);

/** The day before `day`. */
export const dayBefore = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);

/**
 * The first instant after `from` at which the calendar day in `zone` is later than `day`: when the
 * next day begins. Searched rather than computed from offsets, so a midnight that a DST change skips
 * (the day then begins at 01:00) or a zone that moved across the date line still answers right.
 */
export function startOfDayAfter(zone: string, day: string, from: Date): Date {
  const format = dayFormatOf(zone);
  const later = (ms: number) => dayOf(format, new Date(ms)) > day;
  let low = from.getTime();
  if (later(low)) return from;
  let high = low + DAY_MS;
  while (!later(high)) high += DAY_MS;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (later(middle)) high = middle;
    else low = middle;
  }
  return new Date(high);
}
