import { readClickIds, readUtm } from './attribution';
import { readStored, STORAGE_KEYS, writeStored } from './storage';

/** A visit ends after 30 minutes without a page view or watching, as web analytics end a session. */
export const VISIT_IDLE_MS = 30 * 60_000;

interface StoredVisit {
  id: string;
  /** The visit's last hit: a page view, or watching (keepVisitAlive). */
  lastPageAt: number;
  /** The campaign and click ids it came with: new ones start a new visit. */
  source: string;
}

function storedVisit(): StoredVisit | null {
  try {
    const visit = JSON.parse(readStored(STORAGE_KEYS.visit) ?? 'null') as StoredVisit | null;
    return visit && typeof visit.id === 'string' && typeof visit.lastPageAt === 'number' ? visit : null;
  } catch {
    return null;
  }
}

/**
 * A visit's id: 128 random bits in hex. `crypto.getRandomValues`, not `randomUUID`, which browsers
 * give only to secure contexts: a page on plain http (a staging host) would throw on every page view.
 */
const newVisitId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * The visit a page view at `now` belongs to, and whether it is its landing (first page): a new visit
 * starts after 30 idle minutes, or when the page brought a new campaign or click id. Kept in local
 * storage, so the tabs of one browser share it.
 */
export function pageOfVisit(now: number): { visit: string; landing: boolean } {
  const source = JSON.stringify({ ...readUtm(), ...readClickIds() });
  const current = storedVisit();
  const landing = !current || now - current.lastPageAt > VISIT_IDLE_MS || current.source !== source;
  const id = landing ? newVisitId() : current.id;
  writeStored(STORAGE_KEYS.visit, JSON.stringify({ id, lastPageAt: now, source }));
  return { visit: id, landing };
}

/**
 * Watching keeps the visit going without a page view (a video view, each save of the watch position):
 * a viewer who watches for an hour on one page is still in the visit they landed with. A visit
 * already idle for 30 minutes stays ended: the next page starts a new one.
 */
export function keepVisitAlive(now = Date.now()): void {
  const current = storedVisit();
  if (current && now - current.lastPageAt <= VISIT_IDLE_MS && now > current.lastPageAt)
    writeStored(STORAGE_KEYS.visit, JSON.stringify({ ...current, lastPageAt: now }));
}
