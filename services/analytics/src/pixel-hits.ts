import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Attribution } from '@cliffhanger/platform';
import { appendEventBatch, type Database } from '@cliffhanger/platform/outbox';

/**
 * One accepted hit as it arrived, waiting in the buffer: what the request carried, cut to a bounded
 * size, as one string of lines (`arrivedHit`). It is read, cleaned and hashed only when its batch is
 * written, so answering costs a string, and handing a batch to the writer thread copies strings, not
 * objects. Kept in memory only.
 */
export type ArrivedHit = string;

/** What `arrivedHit` keeps of a request; an absent header is an empty string. */
export interface ArrivedFields {
  /** x-user-token: first, so the edge finds it without reading the rest. */
  token: string;
  at: number;
  address: string;
  query: string;
  userAgent: string;
  referrerToken: string;
  fbclid: string;
  ttclid: string;
  traceparent: string;
}

/**
 * A field in a line of its own. HTTP ends a header or the request line at a line break, so no field
 * holds one; one that did anyway (another server in front, a test) is left out rather than allowed
 * to move the fields after it.
 */
export const line = (value: string | string[] | undefined, max: number): string => (typeof value === 'string' && !value.includes('\n') ? value.slice(0, max) : '');

/** Joined into one flat string, which holds on to nothing of the request it came from. */
export const arrivedHit = (hit: ArrivedFields): ArrivedHit =>
  [hit.token, hit.at, hit.address, hit.query, hit.userAgent, hit.referrerToken, hit.fbclid, hit.ttclid, hit.traceparent].join('\n');

function fieldsOf(hit: ArrivedHit): ArrivedFields {
  const [token = '', at = '0', address = '', query = '', userAgent = '', referrerToken = '', fbclid = '', ttclid = '', traceparent = ''] = hit.split('\n');
  return { token, at: Number(at), address, query, userAgent, referrerToken, fbclid, ttclid, traceparent };
}

/** The users of a batch's tokens, resolved where the caller's session can be checked (the edge's thread). */
export type UsersByToken = ReadonlyMap<string, string | null>;

/** The query fields that have a place of their own in statics.hit; the rest go to `params`. */
const OWN_FIELDS = new Set(['event', 'videoId', 'episodeId', 'value', 'currency', 'path', 'userId', 'token', 'fbclid', 'ttclid']);
const MAX_PARAMS = 20;
const MAX_LENGTH = 200;
const MAX_USER_AGENT = 300;
/** Client addresses kept at once (their hash of the day, their count of the minute); past this, fewer are kept. */
export const MAX_COUNTED_ADDRESSES = 100_000;

// The pixel takes any query: a value with control characters (a NUL cannot even be stored) is
// dropped, not recorded, and every value is cut to a bounded length.
const clean = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);
const text = (value: string | null | undefined, max = MAX_LENGTH): string | undefined =>
  typeof value === 'string' && value.length > 0 && clean(value) ? value.slice(0, max) : undefined;
const attributionOf = (value: string): string | null => (value.length > 0 && value.length <= 512 && clean(value) ? value : null);
const traceparentOf = (value: string) =>
  /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/.test(value) ? value : undefined;

/** The user token a hit carries (x-user-token), when it could be one; never stored. */
export const tokenOf = (hit: ArrivedHit): string | null => attributionOf(hit.slice(0, hit.indexOf('\n')));

/**
 * Reads and writes hits: each cleaned and bounded, its address replaced by a keyed hash that changes
 * every UTC day (distinct visitors per day, no address kept), a batch as one outbox row of statics.hit
 * events. Used by the edge's own thread on an embedded database, and by the pixel's writer thread
 * (pixel-writer.ts) on a real server.
 */
export function hitRecorder(ipKey: Uint8Array) {
  // A visitor sends many hits a day: each address is hashed once a day, for a bounded number of them.
  const hashes = new Map<string, string>();
  let hashDay = '';
  function hashOf(address: string, day: string): string {
    if (day !== hashDay || hashes.size >= MAX_COUNTED_ADDRESSES) {
      hashes.clear();
      hashDay = day;
    }
    let hash = hashes.get(address);
    if (hash === undefined) {
      hash = createHmac('sha256', ipKey).update(`${day}|${address}`).digest('base64url').slice(0, 22);
      hashes.set(address, hash);
    }
    return hash;
  }

  /** What a hit tells, cleaned and bounded, as its statics.hit event: null when it names no event. */
  function eventOf(hit: ArrivedHit, users: UsersByToken) {
    const arrived = fieldsOf(hit);
    const query = new URLSearchParams(arrived.query);
    const event = text(query.get('event'), 100);
    if (!event) return null;
    const params: Record<string, string> = {};
    let kept = 0;
    for (const [key, value] of query) {
      if (kept === MAX_PARAMS) break;
      if (OWN_FIELDS.has(key) || key.length > 50 || !clean(key) || !clean(value) || key in params) continue;
      params[key] = value.slice(0, MAX_LENGTH);
      kept++;
    }
    const amount = Math.round(Number(query.get('value') ?? 0) * 100);
    const currency = query.get('currency');
    const traceparent = traceparentOf(arrived.traceparent);
    const at = new Date(arrived.at);
    const token = attributionOf(arrived.token);
    const videoId = text(query.get('videoId'), 100);
    const episodeId = text(query.get('episodeId'), 100);
    const userAgent = text(arrived.userAgent, MAX_USER_AGENT);
    const attribution: Attribution = {
      // Images carry no headers: the storefront repeats the attribution in the query.
      referrerToken: attributionOf(arrived.referrerToken) ?? text(query.get('token')) ?? null,
      fbclid: attributionOf(arrived.fbclid) ?? text(query.get('fbclid'), 512) ?? null,
      ttclid: attributionOf(arrived.ttclid) ?? text(query.get('ttclid'), 512) ?? null,
    };
    return {
      occurredAt: at,
      // Whoever cannot be told (an unknown token, the user service down) is recorded as nobody, not guessed.
      userId: token ? (users.get(token) ?? null) : null,
      attribution,
      ...(traceparent && { traceparent }),
      data: {
        event,
        ...(videoId && { videoId }),
        ...(episodeId && { episodeId }),
        value: { amount: Number.isSafeInteger(amount) && amount >= 0 ? amount : 0, currency: currency && /^[A-Z]{3}$/.test(currency) ? currency : 'USD' },
        path: text(query.get('path')) ?? '',
        params,
        ...(userAgent && { userAgent }),
        ipHash: hashOf(arrived.address, at.toISOString().slice(0, 10)),
      },
    };
  }

  return {
    /** Writes a batch as one outbox row; answers how many of its hits named an event and were written. */
    async write(database: Database, batch: ArrivedHit[], users: UsersByToken): Promise<number> {
      const events = batch.map((arrived) => eventOf(arrived, users)).filter((event) => event !== null);
      // Hits waited in memory already, so the commit does not wait for its WAL flush either (PostgreSQL
      // writes it within a moment; a crash can lose that moment's hits, as it loses the buffer's).
      if (events.length === 0) return 0;
      await database.transaction(async (tx) => {
        await tx.execute(sql`set local synchronous_commit = off`);
        await appendEventBatch(tx, 'statics.hit', events);
      });
      return events.length;
    },
  };
}
