import { createHmac, randomBytes } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { Attribution } from '@cliffhanger/platform';
import { appendEdgeBatch, type Database } from '@cliffhanger/platform/outbox';

/**
 * A statics.png hit goes through three forms. Arrived: what the request carried, cut to a bounded
 * size, one string of lines, in the edge's buffer (memory only). Stored: the same lines with the
 * session token replaced by its user and the client's address by a hash salted by the day, a batch
 * of them one row of `platform.edge_batches`, written by the gateway. An event: read, cleaned and
 * bounded where the analytics module runs (pixel-enricher.ts), as statics.hit in the outbox. The
 * gateway answering the pixel thus only copies strings; the reading scales with the analytics service.
 */
export type ArrivedHit = string;

/** The edge's name in `platform.edge_batches`. */
export const PIXEL_EDGE = 'statics.png';

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

/** Between the hits of a stored batch; no field holds it (`line`). */
const HIT_SEPARATOR = '\u001e';

/**
 * A field in a line of its own. HTTP ends a header or the request line at a line break, so no field
 * holds one; one that did anyway (another server in front, a test), or that held the separator of
 * hits, is left out rather than allowed to move the fields after it.
 */
export const line = (value: string | string[] | undefined, max: number): string =>
  typeof value === 'string' && !value.includes('\n') && !value.includes(HIT_SEPARATOR) ? value.slice(0, max) : '';

/** Joined into one flat string, which holds on to nothing of the request it came from. */
export const arrivedHit = (hit: ArrivedFields): ArrivedHit =>
  [hit.token, hit.at, hit.address, hit.query, hit.userAgent, hit.referrerToken, hit.fbclid, hit.ttclid, hit.traceparent].join('\n');

/** The users of a batch's tokens, resolved where the caller's session can be checked (the edge's thread). */
export type UsersByToken = ReadonlyMap<string, string | null>;

/** The query fields that have a place of their own in statics.hit; the rest go to `params`. */
const OWN_FIELDS = new Set(['event', 'videoId', 'episodeId', 'value', 'currency', 'path', 'userId', 'token', 'fbclid', 'ttclid']);
const MAX_PARAMS = 20;
const MAX_LENGTH = 200;
const MAX_USER_AGENT = 300;
/** Client addresses kept at once (their hash of the day, their count of the minute); past this, fewer are kept. */
export const MAX_COUNTED_ADDRESSES = 100_000;
const DAY_MS = 86_400_000;

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
 * A day's salt lives until the day is over and this margin has passed (hits wait in a gateway's
 * buffer a moment, longer while the database is away); then it is deleted, and a hit of that day
 * still unwritten is stored without an address hash rather than re-create the salt.
 */
export const SALT_MARGIN_MS = 60 * 60_000;

/** The UTC day of `at`, `yyyy-mm-dd`. */
const dayOf = (at: number) => new Date(at - (at % DAY_MS)).toISOString().slice(0, 10);

/**
 * The salt of a UTC day (32 random bytes, as Plausible does): made by whichever process hashes the
 * day's first address, insert-on-conflict so every gateway agrees, deleted once the day is over
 * (`pruneSalts`). Null for a day whose salt is, or may already be, gone: no past day's is made again.
 */
export async function saltOf(database: Pick<Database, 'db'>, day: string, now = Date.now()): Promise<Buffer | null> {
  if (Date.parse(`${day}T00:00:00Z`) + DAY_MS + SALT_MARGIN_MS <= now) return null;
  await database.db.execute(sql`
    insert into platform.edge_salts (day, salt) values (${day}, decode(${randomBytes(32).toString('hex')}, 'hex')) on conflict (day) do nothing`);
  const [row] = await rowsOf<{ salt: string }>(database, sql`select encode(salt, 'hex') as salt from platform.edge_salts where day = ${day}`);
  return row ? Buffer.from(row.salt, 'hex') : null;
}

// The writer thread loads this file without the platform's index (its outbox entry only): rows by hand.
const rowsOf = async <T>(database: Pick<Database, 'db'>, query: SQL): Promise<T[]> => ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;

/** Deletes the salts of days over for more than SALT_MARGIN_MS: their hashes can be linked to no address again. Answers how many. */
export async function pruneSalts(database: Pick<Database, 'db'>, now = Date.now()): Promise<number> {
  // The newest day that is over for more than the margin; it and older ones go.
  const last = dayOf(now - DAY_MS - SALT_MARGIN_MS);
  const rows = await rowsOf(database, sql`delete from platform.edge_salts where day <= ${last} returning day`);
  return rows.length;
}

/**
 * Stores batches of arrived hits (`PIXEL_EDGE` batches): each token replaced by its user, each
 * address by HMAC-SHA-256 keyed with its UTC day's salt (`saltOf`), which is destroyed after the day
 * (distinct visitors per day; no address kept, and no past day re-linkable to one or to another day).
 * Used by the edge's own thread on an embedded database, and by the pixel's writer thread
 * (pixel-writer.ts) on a real server.
 */
export function hitStore() {
  // A visitor sends many hits a day: each address is hashed once a day, for a bounded number of them.
  const hashes = new Map<string, string>();
  const salts = new Map<string, Buffer | null>();
  let hashDay = '';
  function hashOf(address: string, at: number): string {
    const day = dayOf(at);
    const salt = salts.get(day);
    if (!salt) return '';
    if (day !== hashDay || hashes.size >= MAX_COUNTED_ADDRESSES) {
      hashes.clear();
      hashDay = day;
    }
    let hash = hashes.get(address);
    if (hash === undefined) {
      hash = createHmac('sha256', salt).update(address).digest('base64url').slice(0, 22);
      hashes.set(address, hash);
    }
    return hash;
  }

  /** The salts of the batch's days, from the database the first time each is needed; older ones forgotten. */
  async function loadSalts(database: Database, batch: ArrivedHit[]): Promise<void> {
    const days = new Set<string>();
    for (const hit of batch) days.add(dayOf(timeOf(hit.split('\n', 2)[1])));
    const fresh = [...days].filter((day) => !salts.has(day));
    if (fresh.length === 0) return;
    for (const day of fresh) salts.set(day, await saltOf(database, day));
    // About once a day a process meets a new day: the salts of days over go, from here and from the database.
    for (const day of salts.keys()) if (!days.has(day)) salts.delete(day);
    await pruneSalts(database);
  }

  function storedHit(hit: ArrivedHit, users: UsersByToken): string {
    const fields = hit.split('\n');
    const token = attributionOf(fields[0] ?? '');
    // Whoever cannot be told (an unknown token, the user service down) is recorded as nobody, not guessed.
    fields[0] = (token && users.get(token)) ?? '';
    fields[2] = hashOf(fields[2] ?? '', timeOf(fields[1]));
    return fields.join('\n');
  }

  return {
    /** Writes a batch as one row of `platform.edge_batches`. */
    async write(database: Database, batch: ArrivedHit[], users: UsersByToken): Promise<void> {
      await loadSalts(database, batch);
      const body = batch.map((hit) => storedHit(hit, users)).join(HIT_SEPARATOR);
      // Hits waited in memory already, so the commit does not wait for its WAL flush either (PostgreSQL
      // writes it within a moment; a crash can lose that moment's hits, as it loses the buffer's).
      await database.transaction(async (tx) => {
        await tx.execute(sql`set local synchronous_commit = off`);
        await appendEdgeBatch(tx, PIXEL_EDGE, body);
      });
    },
  };
}

/** When a hit arrived, in ms; now when its field is not a time. */
function timeOf(field: string | undefined): number {
  const at = Number(field);
  return Number.isSafeInteger(at) && at >= 0 ? at : Date.now();
}

/** A stored batch's hits as statics.hit events, in their order (a hit that names no event is none), and how many hits it held. */
export function hitEventsOf(body: string) {
  const hits = body.split(HIT_SEPARATOR);
  const events = hits.map(eventOf).filter((event) => event !== null);
  return { events, hits: hits.length };
}

/** What a stored hit tells, cleaned and bounded, as its statics.hit event: null when it names no event. */
function eventOf(hit: string) {
  const [userId = '', at = '', ipHash = '', query = '', userAgent = '', referrerToken = '', fbclid = '', ttclid = '', traceparent = ''] = hit.split('\n');
  const ms = Number(at);
  if (!Number.isSafeInteger(ms) || ms < 0) return null;
  // One pass over the query: the first of each own field (as URLSearchParams.get reads it), and
  // the first MAX_PARAMS others that are clean.
  const own = new Map<string, string>();
  const params: Record<string, string> = {};
  let kept = 0;
  for (const [key, value] of new URLSearchParams(query)) {
    if (OWN_FIELDS.has(key)) {
      if (!own.has(key)) own.set(key, value);
    } else if (kept < MAX_PARAMS && key.length <= 50 && clean(key) && clean(value) && !(key in params)) {
      params[key] = value.slice(0, MAX_LENGTH);
      kept++;
    }
  }
  const event = text(own.get('event'), 100);
  if (!event) return null;
  const amount = Math.round(Number(own.get('value') ?? 0) * 100);
  const currency = own.get('currency');
  const trace = traceparentOf(traceparent);
  const videoId = text(own.get('videoId'), 100);
  const episodeId = text(own.get('episodeId'), 100);
  const agent = text(userAgent, MAX_USER_AGENT);
  const attribution: Attribution = {
    // Images carry no headers: the storefront repeats the attribution in the query.
    referrerToken: attributionOf(referrerToken) ?? text(own.get('token')) ?? null,
    fbclid: attributionOf(fbclid) ?? text(own.get('fbclid'), 512) ?? null,
    ttclid: attributionOf(ttclid) ?? text(own.get('ttclid'), 512) ?? null,
  };
  return {
    time: new Date(ms).toISOString(),
    userId: userId || null,
    attribution,
    ...(trace && { traceparent: trace }),
    data: {
      event,
      ...(videoId && { videoId }),
      ...(episodeId && { episodeId }),
      value: { amount: Number.isSafeInteger(amount) && amount >= 0 ? amount : 0, currency: currency && /^[A-Z]{3}$/.test(currency) ? currency : 'USD' },
      path: text(own.get('path')) ?? '',
      params,
      ...(agent && { userAgent: agent }),
      ipHash,
    },
  };
}
