// Local storage names of the values every API call carries (spec sections 2, 3 and 7).
export const STORAGE_KEYS = {
  referrerToken: 'cliffhanger.referrerToken',
  userToken: 'cliffhanger.userToken',
  userId: 'cliffhanger.userId',
  clickIds: 'cliffhanger.clickIds',
  /** The utm_* fields of the latest landing URL that had any (lib/attribution.ts). */
  utm: 'cliffhanger.utm',
  /** The current visit: its id, last page view and source (lib/visit.ts). */
  visit: 'cliffhanger.visit',
  language: 'cliffhanger.language',
  searchHistory: 'cliffhanger.searchHistory',
  /** Orders whose purchase was already reported to the analytics and ad pixels (lib/conversions.ts). */
  reportedOrders: 'cliffhanger.reportedOrders',
} as const;

type StorageKey = (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS];

// Storage may be unavailable (private modes, blocked cookies); the site must keep working without it.
export function readStored(key: StorageKey): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStored(key: StorageKey, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Nothing to do: without storage the values live only for this page view.
  }
}
