import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Worker } from 'node:worker_threads';
import proxyAddr from 'proxy-addr';
import { Counter, Gauge } from 'prom-client';
import { startThread, type Authenticate, type Database, type Edge, type Logger, type Platform } from '@cliffhanger/platform';
import { arrivedHit, hitStore, line, MAX_COUNTED_ADDRESSES, tokenOf, type ArrivedHit, type UsersByToken } from './pixel-hits.ts';
import type { WriterData, WriterReply, WriterRequest } from './pixel-writer.ts';

// The smallest transparent PNG: 1x1, one byte of alpha.
export const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const PIXEL_HEADERS = {
  'content-type': 'image/png',
  'content-length': String(PIXEL_PNG.length),
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** Hits that start a write at once on PGlite, and the most one write takes there: it works in this thread. */
const BATCH = 500;
/**
 * Hits that start a write at once on PostgreSQL, through the writer thread; fewer wait for
 * `PIXEL_FLUSH_MS`. A transaction costs the thread and the server far more than a hit in it, so
 * under load a write waits for this many instead of taking the few that came in during the last.
 */
const WRITER_FULL_BATCH = 2_000;
/** The most hits one write takes through the writer thread: what piled up while it was down or slow. */
const WRITER_BATCH = 5_000;

/** Hits that start a write at once: a full batch, for the writer this database gets. */
export const fullBatchFor = (database: Pick<Database, 'connectionString'>): number => (database.connectionString ? WRITER_FULL_BATCH : BATCH);

/** The longest query kept: room for every field the hit can hold (20 parameters of 200 characters). */
const MAX_QUERY = 8_000;
/** The longest header kept. */
const MAX_HEADER = 600;

export interface PixelOptions {
  platform: Pick<Platform, 'config' | 'database' | 'logger' | 'metrics' | 'lifecycle'>;
  authenticate: Authenticate;
  /** How long a hit may wait before it is written. */
  flushMs?: number;
}

/**
 * statics.png hits by what became of them: at the edge buffered, written, limited (over the
 * per-address limit) or dropped (buffer full, or unwritten at shutdown); where their batch became
 * events, ignored (no event name). One set of series per process: a second edge on the same
 * registry (a test's) counts into it too.
 */
export const pixelHitCounter = (registry: Platform['metrics']['registry']): Counter<'outcome'> =>
  (registry.getSingleMetric('pixel_hits_total') as Counter<'outcome'> | undefined) ??
  new Counter({
    name: 'pixel_hits_total',
    help: 'statics.png requests, by what became of the hit: buffered, written, limited (over the per-address limit), dropped (buffer full, or unwritten at shutdown), ignored (no event name, found when its batch became events)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

/**
 * `GET /api/statics.png`, answered on the bare HTTP server before Express: a 1x1 PNG at once, to
 * any query, whatever storage or the other services are doing. The hit goes into a bounded buffer
 * and is written in batches, as it arrived but for its token and address (pixel-hits.ts), for the
 * analytics module to turn into statics.hit events; if the database is unreachable the buffer
 * holds hits (dropping the newest once full) and writing resumes when it is back. A query's
 * `userId` is never believed: the hit belongs to the user whose token the request carries.
 */
export function createPixelEdge({ platform, authenticate, flushMs = platform.config.PIXEL_FLUSH_MS }: PixelOptions): Edge {
  const { config, database, logger, metrics, lifecycle } = platform;
  const hits = pixelHitCounter(metrics.registry);
  const buffered =
    (metrics.registry.getSingleMetric('pixel_buffer_hits') as Gauge | undefined) ??
    new Gauge({ name: 'pixel_buffer_hits', help: 'statics.png hits waiting to be written', registers: [metrics.registry] });
  // Bound once: counting a request is then one addition.
  const accepted = hits.labels('buffered');
  const limited = hits.labels('limited');
  const dropped = hits.labels('dropped');
  const written = hits.labels('written');
  const addressOf = addressRule(config.TRUST_PROXY);
  // On a real server a thread of its own reads and writes the batches, on connections of its own:
  // this thread, answering every request, only copies each one out. An embedded database lives in
  // this thread, and so does its writing.
  const writer = database.connectionString ? writerThread({ connectionString: database.connectionString }, logger) : inThisThread(database);
  const pending: ArrivedHit[] = [];
  const counts = new Map<string, number>();
  let minute = 0;
  let timer: NodeJS.Timeout | null = null;
  let failures = 0;
  let writing: Promise<void> | null = null;
  let stopped = false;

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
    const address = addressOf(req);
    if (overLimit(address, at)) return void limited.inc();
    if (pending.length >= config.PIXEL_BUFFER_HITS) return void dropped.inc();
    const { headers } = req;
    pending.push(
      arrivedHit({
        token: line(headers['x-user-token'], MAX_HEADER),
        at,
        address: line(address, MAX_HEADER),
        query: line(rawQuery, MAX_QUERY),
        userAgent: line(headers['user-agent'], MAX_HEADER),
        referrerToken: line(headers['x-referrer-token'], MAX_HEADER),
        fbclid: line(headers['x-fbclid'], MAX_HEADER),
        ttclid: line(headers['x-ttclid'], MAX_HEADER),
        traceparent: line(headers.traceparent, MAX_HEADER),
      }),
    );
    accepted.inc();
    buffered.set(pending.length);
    // A full batch is written at once (a busy pixel would otherwise fill its buffer between
    // flushes); a lone hit waits for the flush, and after a failure the backoff decides.
    if (pending.length >= writer.fullBatch && failures === 0 && !writing) {
      if (timer) clearTimeout(timer);
      timer = null;
      void writeOut();
    } else schedule();
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

  /**
   * Writes full batches until fewer than a full one wait (the flush timer takes those), the whole
   * buffer once stopping, or until the database fails; one writer at a time.
   */
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
        // The first write takes what is there: a full batch, or the flush timer's few.
        await writeBatch(pending.slice(0, writer.batchSize));
        // Between batches, the requests waiting: an embedded database works on this process's thread.
        await new Promise((resolve) => setImmediate(resolve));
        if (!stopped && pending.length < writer.fullBatch) break;
      }
      failures = 0;
    } catch (error) {
      failures++;
      logger.warn({ err: error, waiting: pending.length }, 'statics.png hits not written yet; retrying');
    }
  }

  async function writeBatch(batch: ArrivedHit[]): Promise<void> {
    const users = new Map<string, string | null>();
    for (const arrived of batch) {
      const token = tokenOf(arrived);
      if (token === null || users.has(token)) continue;
      // Whoever cannot be told (the user service is down) is recorded as nobody, not guessed.
      users.set(token, await authenticate(token).then((caller) => caller?.userId ?? null, () => null));
    }
    await writer.write(batch, users);
    pending.splice(0, batch.length);
    written.inc(batch.length);
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
      await writer.close();
      if (pending.length > 0) {
        logger.error({ lost: pending.length }, 'statics.png hits could not be written before shutdown');
        dropped.inc(pending.length);
        pending.length = 0;
        buffered.set(0);
      }
    },
  };
}

/** The client's address by the same rule as the Express stack's `trust proxy` (TRUST_PROXY): hops, or proxy addresses. */
function addressRule(setting: number | string[] | false): (req: IncomingMessage) => string {
  // Trusting no proxy, it is the connection's: what proxy-addr answers too, after parsing every
  // X-Forwarded-For entry of every request.
  if (setting === false) return (req) => req.socket.remoteAddress ?? '';
  const trusted = typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : proxyAddr.compile(setting);
  return (req) => proxyAddr(req, trusted);
}

/** Writes batches of hits. */
interface HitWriter {
  /** Hits that start a write at once; fewer wait for the flush. */
  fullBatch: number;
  /** The most hits one write takes. */
  batchSize: number;
  write(batch: ArrivedHit[], users: UsersByToken): Promise<void>;
  close(): Promise<void>;
}

/** On PGlite, which lives in this thread: a write at a time, between requests, of BATCH hits at most. */
function inThisThread(database: Database): HitWriter {
  const store = hitStore();
  return { fullBatch: fullBatchFor(database), batchSize: BATCH, write: (batch, users) => store.write(database, batch, users), close: async () => {} };
}

/**
 * The pixel's writer thread (pixel-writer.ts), started with the edge (loading it takes a moment in
 * which a busy pixel would fill its buffer) and again with the next batch after it died: a batch
 * handed to it is written when its promise resolves, and stays in the buffer until then.
 */
function writerThread(data: WriterData, logger: Logger): HitWriter {
  let thread: Worker | null = null;
  let nextId = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  function failAll(error: Error): void {
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  }

  function started(): Worker {
    if (thread) return thread;
    const worker = startThread(new URL('./pixel-writer.ts', import.meta.url), { data });
    // The buffer's own stop ends it; it never keeps the process alive by itself.
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      const request = waiting.get(reply.id);
      waiting.delete(reply.id);
      if ('error' in reply) request?.reject(new Error(reply.error));
      else request?.resolve();
    });
    worker.on('error', (error) => logger.error({ err: error }, 'the statics.png writer thread failed; a new one takes over'));
    worker.on('exit', () => {
      if (thread === worker) thread = null;
      failAll(new Error('the statics.png writer thread ended'));
    });
    thread = worker;
    return worker;
  }

  started();
  return {
    fullBatch: fullBatchFor(data),
    batchSize: WRITER_BATCH,
    write(batch, users) {
      const id = nextId++;
      return new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        started().postMessage({ id, batch, users: [...users] } satisfies WriterRequest);
      });
    },
    /** Closes its connections and ends the thread, once nothing is being written. */
    async close() {
      const worker = thread;
      if (!worker) return;
      thread = null;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ close: true } satisfies WriterRequest);
      await exited;
    },
  };
}
