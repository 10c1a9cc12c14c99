import { createHmac, hkdfSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sql } from 'drizzle-orm';
import proxyAddr from 'proxy-addr';
import { Counter, Gauge } from 'prom-client';
import { appendEventBatch, serverSecret, type Attribution, type Authenticate, type Edge, type Platform } from '@cliffhanger/platform';

// The smallest transparent PNG: 1x1, one byte of alpha.
export const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const PIXEL_HEADERS = {
  'content-type': 'image/png',
  'content-length': String(PIXEL_PNG.length),
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** The query fields that have a place of their own in statics.hit; the rest go to `params`. */
const OWN_FIELDS = new Set(['event', 'videoId', 'episodeId', 'value', 'currency', 'path', 'userId', 'token', 'fbclid', 'ttclid']);
const MAX_PARAMS = 20;
const MAX_LENGTH = 200;
const MAX_USER_AGENT = 300;
/** Hits written per transaction. */
const BATCH = 500;
/** Client addresses counted against the per-minute limit at once; past this, new addresses are not counted. */
const MAX_COUNTED_ADDRESSES = 100_000;

// The pixel takes any query: a value with control characters (a NUL cannot even be stored) is
// dropped, not recorded, and every value is cut to a bounded length.
const clean = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);
const text = (value: string | null | undefined, max = MAX_LENGTH): string | undefined =>
  typeof value === 'string' && value.length > 0 && clean(value) ? value.slice(0, max) : undefined;
const attributionOf = (value: string | string[] | undefined): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 512 && clean(value) ? value : null;
const traceparentOf = (value: string | string[] | undefined) =>
  typeof value === 'string' && /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/.test(value) ? value : undefined;

/**
 * One accepted hit as it arrived, waiting in the buffer: only what the request carried, cut to a
 * bounded size (the query and each header). It is read, cleaned and hashed when its batch is
 * written, so answering takes no more than copying these out. Kept in memory only.
 */
interface ArrivedHit {
  at: number;
  query: string;
  address: string;
  userAgent: string | undefined;
  token: string | string[] | undefined;
  referrerToken: string | string[] | undefined;
  fbclid: string | string[] | undefined;
  ttclid: string | string[] | undefined;
  traceparent: string | string[] | undefined;
}

/** The longest query kept: room for every field the hit can hold (20 parameters of 200 characters). */
const MAX_QUERY = 8_000;
const bounded = (value: string | string[] | undefined, max = 600) => (typeof value === 'string' ? value.slice(0, max) : undefined);

/** A hit cleaned and bounded, as it is written: no raw address, no token. */
interface Hit {
  at: Date;
  /** The caller's user token (x-user-token), resolved when the hit is written; never stored. */
  token: string | null;
  attribution: Attribution;
  traceparent?: string;
  data: {
    event: string;
    videoId?: string;
    episodeId?: string;
    value: { amount: number; currency: string };
    path: string;
    params: Record<string, string>;
    userAgent?: string;
    ipHash: string;
  };
}

export interface PixelOptions {
  platform: Pick<Platform, 'config' | 'database' | 'bus' | 'logger' | 'metrics' | 'lifecycle'>;
  authenticate: Authenticate;
  /** How long a hit may wait before it is written. */
  flushMs?: number;
}

/**
 * `GET /api/statics.png`, answered on the bare HTTP server before Express: a 1x1 PNG at once, to
 * any query, whatever storage or the other services are doing. The hit goes into a bounded buffer
 * and is written in batches as statics.hit events; if the database is unreachable the buffer
 * holds hits (dropping the newest once full) and writing resumes when it is back. A query's
 * `userId` is never believed: the hit belongs to the user whose token the request carries.
 */
export function createPixelEdge({ platform, authenticate, flushMs = platform.config.PIXEL_FLUSH_MS }: PixelOptions): Edge {
  const { config, database, bus, logger, metrics, lifecycle } = platform;
  // One set of series per process: a second edge on the same registry (a test's) counts into it too.
  const hits =
    (metrics.registry.getSingleMetric('pixel_hits_total') as Counter<'outcome'> | undefined) ??
    new Counter({
      name: 'pixel_hits_total',
      help: 'statics.png requests, by what became of the hit: buffered, written, limited (over the per-address limit), dropped (buffer full, or unwritten at shutdown), ignored (no event name)',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
  const buffered =
    (metrics.registry.getSingleMetric('pixel_buffer_hits') as Gauge | undefined) ??
    new Gauge({ name: 'pixel_buffer_hits', help: 'statics.png hits waiting to be written', registers: [metrics.registry] });
  // Bound once: counting a request is then one addition.
  const accepted = hits.labels('buffered');
  const limited = hits.labels('limited');
  const dropped = hits.labels('dropped');
  const ignored = hits.labels('ignored');
  const written = hits.labels('written');
  const trusted = trustOf(config.TRUST_PROXY);
  const ipKey = Buffer.from(hkdfSync('sha256', serverSecret(config, 'MEDIA_SECRET'), '', 'cliffhanger statics.png address hash', 32));
  const pending: ArrivedHit[] = [];
  const counts = new Map<string, number>();
  let minute = 0;
  let timer: NodeJS.Timeout | null = null;
  let failures = 0;
  let writing: Promise<void> | null = null;
  let stopped = false;

  // A visitor sends many hits a day: each address is hashed once a day, for a bounded number of them.
  const hashes = new Map<string, string>();
  let hashDay = '';
  /** A keyed hash of the address that changes every UTC day: distinct visitors per day, no address kept. */
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

  function overLimit(address: string, now: number): boolean {
    const current = Math.floor(now / 60_000);
    if (current !== minute) {
      minute = current;
      counts.clear();
    }
    const count = (counts.get(address) ?? 0) + 1;
    if (count === 1 && counts.size >= MAX_COUNTED_ADDRESSES) return false;
    counts.set(address, count);
    return count > config.RATE_LIMIT_PIXEL_PER_MINUTE;
  }

  function accept(req: IncomingMessage, rawQuery: string): void {
    const at = Date.now();
    const address = proxyAddr(req, trusted);
    if (overLimit(address, at)) return void limited.inc();
    if (pending.length >= config.PIXEL_BUFFER_HITS) return void dropped.inc();
    const { headers } = req;
    pending.push({
      at,
      query: rawQuery.slice(0, MAX_QUERY),
      address,
      userAgent: bounded(headers['user-agent']),
      token: bounded(headers['x-user-token']),
      referrerToken: bounded(headers['x-referrer-token']),
      fbclid: bounded(headers['x-fbclid']),
      ttclid: bounded(headers['x-ttclid']),
      traceparent: bounded(headers.traceparent),
    });
    accepted.inc();
    buffered.set(pending.length);
    // A full batch is written at once (a busy pixel would otherwise fill its buffer between
    // flushes); a lone hit waits for the flush, and after a failure the backoff decides.
    if (pending.length >= BATCH && failures === 0 && !writing) {
      if (timer) clearTimeout(timer);
      timer = null;
      void writeOut();
    } else schedule();
  }

  /** What a hit tells, cleaned and bounded: null when it names no event. */
  function hitOf(arrived: ArrivedHit): Hit | null {
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
    return {
      at,
      token: attributionOf(arrived.token),
      // Images carry no headers: the storefront repeats the attribution in the query.
      attribution: {
        referrerToken: attributionOf(arrived.referrerToken) ?? text(query.get('token')) ?? null,
        fbclid: attributionOf(arrived.fbclid) ?? text(query.get('fbclid'), 512) ?? null,
        ttclid: attributionOf(arrived.ttclid) ?? text(query.get('ttclid'), 512) ?? null,
      },
      ...(traceparent && { traceparent }),
      data: {
        event,
        ...(text(query.get('videoId'), 100) && { videoId: text(query.get('videoId'), 100) }),
        ...(text(query.get('episodeId'), 100) && { episodeId: text(query.get('episodeId'), 100) }),
        value: { amount: Number.isSafeInteger(amount) && amount >= 0 ? amount : 0, currency: currency && /^[A-Z]{3}$/.test(currency) ? currency : 'USD' },
        path: text(query.get('path')) ?? '',
        params,
        ...(text(arrived.userAgent, MAX_USER_AGENT) && { userAgent: text(arrived.userAgent, MAX_USER_AGENT) }),
        ipHash: hashOf(arrived.address, at.toISOString().slice(0, 10)),
      },
    };
  }

  function schedule(): void {
    if (timer || stopped) return;
    // After a failed write, wait longer each time (up to a minute) before trying the database again.
    const delay = failures === 0 ? flushMs : Math.min(60_000, flushMs * 2 ** failures);
    timer = setTimeout(() => {
      timer = null;
      void writeOut();
    }, delay);
    timer.unref();
  }

  /** Writes the buffer in batches until it is empty or the database fails; one writer at a time. */
  function writeOut(): Promise<void> {
    writing ??= drain().finally(() => {
      writing = null;
      buffered.set(pending.length);
      if (pending.length > 0) schedule();
    });
    return writing;
  }

  async function drain(): Promise<void> {
    try {
      while (pending.length > 0) {
        await writeBatch(pending.slice(0, BATCH));
        // Between batches, the requests waiting: an embedded database works on this process's thread.
        await new Promise((resolve) => setImmediate(resolve));
      }
      failures = 0;
    } catch (error) {
      failures++;
      logger.warn({ err: error, waiting: pending.length }, 'statics.png hits not written yet; retrying');
    }
  }

  async function writeBatch(batch: ArrivedHit[]): Promise<void> {
    const read = batch.map(hitOf).filter((hit): hit is Hit => hit !== null);
    const users = new Map<string, string | null>();
    for (const { token } of read) {
      if (token === null || users.has(token)) continue;
      // Whoever cannot be told (the user service is down) is recorded as nobody, not guessed.
      users.set(token, await authenticate(token).catch(() => null));
    }
    const events = read.map(({ token, attribution, traceparent, data, at }) => ({
      data,
      userId: token ? (users.get(token) ?? null) : null,
      attribution,
      ...(traceparent && { traceparent }),
      occurredAt: at,
    }));
    // One outbox row for the batch: its hits still travel as a statics.hit event each. Hits waited in
    // memory already, so the commit does not wait for its WAL flush either (PostgreSQL writes it
    // within a moment; a crash can lose that moment's hits, as it loses the buffer's).
    await database.transaction(async (tx) => {
      await tx.execute(sql`set local synchronous_commit = off`);
      await appendEventBatch(tx, 'statics.hit', events);
    });
    pending.splice(0, batch.length);
    ignored.inc(batch.length - read.length);
    written.inc(read.length);
    bus.nudge();
  }

  return {
    path: '/api/statics.png',
    handle(req: IncomingMessage, res: ServerResponse) {
      const url = req.url ?? '';
      const query = url.indexOf('?');
      try {
        if (req.method === 'GET' && query !== -1 && !stopped) accept(req, url.slice(query + 1));
      } catch (error) {
        logger.warn({ err: error }, 'statics.png hit not kept');
      }
      if (lifecycle.stopping) res.setHeader('connection', 'close');
      res.writeHead(200, PIXEL_HEADERS);
      res.end(req.method === 'HEAD' ? undefined : PIXEL_PNG);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await writing;
      await writeOut();
      if (pending.length > 0) {
        logger.error({ lost: pending.length }, 'statics.png hits could not be written before shutdown');
        dropped.inc(pending.length);
        pending.length = 0;
        buffered.set(0);
      }
    },
  };
}

/** The same rule as the Express stack's `trust proxy` (TRUST_PROXY): hops, or proxy addresses. */
function trustOf(setting: number | string[] | false): (address: string, hop: number) => boolean {
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyAddr.compile(setting);
}
