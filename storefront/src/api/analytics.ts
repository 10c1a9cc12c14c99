import { readAttribution } from '../lib/attribution';
import { readStored, STORAGE_KEYS } from '../lib/storage';

export type EventParams = Record<string, string | number | undefined>;

// Analytics events default to currency USD and value 0 (spec section 9).
export const EVENT_DEFAULTS = { currency: 'USD', value: 0 } as const;

/** The query of one statics.png hit: defaults, then the event's fields, then who and where from. */
export function staticsQuery(event: string, params: EventParams = {}): URLSearchParams {
  const { referrerToken, fbclid, ttclid } = readAttribution();
  const query = new URLSearchParams({ event });
  const fields: EventParams = {
    ...EVENT_DEFAULTS,
    ...params,
    userId: readStored(STORAGE_KEYS.userId) ?? undefined,
    token: referrerToken,
    fbclid,
    ttclid,
  };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && value !== '') query.set(key, String(value));
  }
  return query;
}

/** Fires the analytics pixel with an Image, so it never blocks, never throws and needs no CORS. */
export function trackEvent(event: string, params?: EventParams): void {
  const pixel = new Image(1, 1);
  pixel.src = `/api/statics.png?${staticsQuery(event, params).toString()}`;
}
