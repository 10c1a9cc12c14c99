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

/** The headers of a statics.png hit: the pixel counts a hit for the user whose token it carries. */
export function staticsHeaders(): Record<string, string> {
  const { userToken, referrerToken, fbclid, ttclid } = readAttribution();
  const headers: Record<string, string> = {};
  if (userToken) headers['x-user-token'] = userToken;
  if (referrerToken) headers['x-referrer-token'] = referrerToken;
  if (fbclid) headers['x-fbclid'] = fbclid;
  if (ttclid) headers['x-ttclid'] = ttclid;
  return headers;
}

/**
 * Fires the analytics pixel. A fetch rather than an Image, because an image cannot carry the user
 * token; `keepalive` lets a hit sent as the page goes away (pagehide) still arrive. It never blocks
 * and never throws: a lost hit is only a lost hit.
 */
export function trackEvent(event: string, params?: EventParams): void {
  try {
    fetch(`/api/statics.png?${staticsQuery(event, params).toString()}`, {
      headers: staticsHeaders(),
      credentials: 'same-origin',
      keepalive: true,
    })
      // Reading the pixel's few bytes ends the request: an unread keepalive response stays open in
      // the browser's view, and a page that never looks loaded is measured as still loading (Lighthouse).
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
  } catch {
    // fetch itself refused (a keepalive quota, a page being torn down): the hit is dropped.
  }
}
