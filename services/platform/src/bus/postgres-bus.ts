import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { queryRows, type Database } from '../db/database.ts';
import { defaultDeliveryPolicy, oneAtATime, type BatchEventHandler, type DeliveryPolicy, type EventBus, type EventHandler, type Subscription } from './bus.ts';
import { applyMarked, applyMarkedBatch, applyOnce, describe, markProcessed, replayRequested, runAfterCommit, setAsideDeadEvent, type AfterCommit } from './delivery.ts';
import { eventsFromRow, type BusEvent, type EventType, type OutboxRow } from './events.ts';

/** A handler's failure in a batch delivered together: the batch is rolled back and delivered one event at a time. */
class HandlerFailed extends Error {
  constructor(
    readonly eventId: string | null,
    readonly failure: unknown,
  ) {
    super('an event handler failed in a batch delivered together', { cause: failure });
  }
}

const RELAY_LOCK = 72_617_002;
const CHANNEL = 'cliffhanger_bus';
/** Events numbered by one run of the relay. */
const RELAY_BATCH = 500;
// Nudges within this long (50 ms) wake the relay once: under load one relay run numbers many events instead
// of a run per event (the relay's transaction costs about as much as the change that nudged it).
const NUDGE_COALESCE_MS = 50;
// A consumer woken again this soon (200 ms) after its last delivery began waits for the rest: under
// load the events of many relay runs then go in one delivery, whose transaction (offset, read, marks)
// costs about as much for one event as for a hundred. A consumer woken after a quiet spell goes at once.
const DELIVERY_SPACING_MS = 200;
/** The outbox rows a batch handler's delivery reads, whatever `batch` says. */
const BATCH_HANDLER_ROWS = 100;

export interface PostgresBusOptions {
  /** How often the relay looks for committed events nobody nudged it about. */
  pollMs?: number;
  /**
   * How long a consumer with nothing left to read waits for a wake before looking again (default
   * `pollMs`). The relay wakes it whenever it numbers events of a type it reads, so the look is for
   * what no wake announces: an operator's replay, a consumer another process held.
   */
  idleMs?: number;
  /**
   * Outbox rows one consumer's transaction reads (default 100; a batch handler's, 100 at least). An embedded database answers on the
   * server's own thread and holds one transaction at a time: a delivery of 100 events kept every
   * request that reads it waiting for the whole batch (a few hundred milliseconds), so it takes fewer.
   */
  batch?: number;
  /** The least time between the starts of one consumer's deliveries while it keeps up (default 200 ms; 0 for none). */
  spacingMs?: number;
  delivery?: DeliveryPolicy;
}

/**
 * The outbox is the log. One relay at a time (advisory lock) numbers committed events in commit
 * order; every consumer keeps its offset in that numbering. Works in one process on PGlite and
 * across processes on PostgreSQL, where NOTIFY wakes the others.
 */
export function createPostgresBus(database: Database, logger: Logger, options: PostgresBusOptions = {}): EventBus {
  const pollMs = options.pollMs ?? 500;
  const idleMs = options.idleMs ?? pollMs;
  const batch = options.batch ?? 100;
  const spacingMs = options.spacingMs ?? DELIVERY_SPACING_MS;
  const delivery = options.delivery ?? defaultDeliveryPolicy;
  const subscriptions: Subscription[] = [];
  const wake = new EventEmitter();
  wake.setMaxListeners(0);
  let running = false;
  /** Tells this process's own NOTIFY from another's, which alone wakes it. */
  const processId = randomUUID();
  const loops: Promise<void>[] = [];
  let unlisten: (() => Promise<void>) | null = null;

  /** Numbers committed events; answers how many, and their types (a consumer wakes only for types it reads). */
  async function sequenceCommittedEvents(): Promise<{ count: number; types: EventType[] }> {
    return database.rawTransaction(async (session) => {
      const [lock] = await session.query<{ locked: boolean }>('select pg_try_advisory_xact_lock($1) as locked', [RELAY_LOCK]);
      if (!lock?.locked) return { count: 0, types: [] };
      // Numbered on from the highest number, read by this statement after the lock: the last relay's
      // numbers are committed by then.
      const numbered = await session.query(
        `update platform.outbox o set seq = (select coalesce(max(seq), 0) from platform.outbox) + p.rn
           from (select id, row_number() over (order by id) as rn from platform.outbox
                  where seq is null order by id limit $1) p
          where o.id = p.id returning o.type`,
        [RELAY_BATCH],
      );
      const types = [...new Set(numbered.map((row) => (row as { type: EventType }).type))];
      // Other processes' consumers wake for the types they read; this process's own are woken by the caller.
      if (types.length > 0 && database.kind === 'postgres') await session.query('select pg_notify($1, $2)', [CHANNEL, JSON.stringify({ from: processId, types })]);
      return { count: numbered.length, types };
    });
  }

  /**
   * Delivers the next batch to one consumer; answers how long to wait before the next call. The batch
   * goes together first: its events marked processed in one statement, its handlers run one after
   * another in the one transaction. A handler that fails throws the whole batch back (nothing of it
   * stands) and it is delivered again one event at a time, each in a savepoint: the events before the
   * failed one stand, and its failure counts as its first attempt (it is retried later and at last set
   * aside). Handlers run again after a rollback, as the EventHandler contract allows.
   */
  async function deliverBatch(subscription: Subscription): Promise<number> {
    try {
      return await deliver(subscription, null);
    } catch (error) {
      if (!(error instanceof HandlerFailed)) throw error;
      return deliver(subscription, error);
    }
  }

  /** One delivery: together, or (`failed`: how delivering it together failed) one event at a time. */
  async function deliver(subscription: Subscription, failed: HandlerFailed | null): Promise<number> {
    const { consumer, types, handler } = subscription;
    // A batch handler's delivery costs a few statements whatever it holds: it reads a full batch
    // (100) where per-event handlers read fewer (the embedded database's 10).
    const limit = subscription.batch && !failed ? Math.max(batch, BATCH_HANDLER_ROWS) : batch;
    const committed: AfterCommit[] = [];
    const next = await database.transaction(async (tx) => {
      // A transaction run again (a deadlock's victim) keeps only what its last run left to do.
      committed.length = 0;
      const [offset] = await queryRows<{ seq: string | number; failures: number }>(
        tx,
        sql`select seq, failures from platform.consumer_offsets where consumer = ${consumer} for update skip locked`,
      );
      if (!offset) return pollMs; // another process is delivering to this consumer
      const rows = await queryRows<OutboxRow>(
        tx,
        // Only the events it reads are parsed for it (a row of pixel hits is large).
        sql`select seq, event_id, type, occurred_at, user_id, attribution, traceparent,
                   case when type = any(${sql.param([...types])}::text[]) then data else 'null'::jsonb end as data
              from platform.outbox where seq > ${Number(offset.seq)} order by seq limit ${limit}`,
      );
      // A batch row (the pixel's hits) is delivered whole: one transaction takes rows until it holds
      // about five batches' worth of events.
      const taken: { row: OutboxRow; events: BusEvent[] }[] = [];
      let handed = 0;
      for (const row of rows) {
        const events = types.includes(row.type as EventType) ? eventsFromRow(row) : [];
        taken.push({ row, events });
        handed += events.length;
        if (handed >= limit * 5) break;
      }
      const more = rows.length === limit || taken.length < rows.length;
      let wait = more ? 0 : idleMs;
      let position = Number(offset.seq);
      if (!failed && offset.failures === 0) {
        const events = taken.flatMap(({ events }) => events);
        const fresh = await markProcessed(tx, consumer, events.map((event) => event.id)).catch((error: unknown) => {
          throw new HandlerFailed(null, error);
        });
        // Each id once: an event twice in the batch is applied the first time only, as one by one.
        const marked = events.filter((event) => fresh.delete(event.id));
        if (subscription.batch) {
          if (marked.length > 0)
            await applyMarkedBatch(tx, consumer, marked, subscription.batch, committed).catch((error: unknown) => {
              throw new HandlerFailed(null, error);
            });
        } else
          for (const event of marked)
            await applyMarked(tx, consumer, event, handler, committed).catch((error: unknown) => {
              throw new HandlerFailed(event.id, error);
            });
        position = taken.length > 0 ? Number(taken[taken.length - 1]!.row.seq) : position;
      } else {
        let failures = offset.failures;
        for (const { row, events } of taken) {
          // Events of a batch row applied before a failure are skipped by their processed marks when it comes back.
          for (const event of events) {
            try {
              // The event that failed the batch failed just now: that attempt counts, it is not made again at once.
              if (failed && failed.eventId === event.id) {
                const { failure } = failed;
                failed = null;
                throw failure;
              }
              await tx.transaction((savepoint) => applyOnce(savepoint as never, consumer, event, handler, committed));
            } catch (error) {
              failures += 1;
              logger.warn({ consumer, eventId: event.id, type: event.type, failures, err: error }, 'event handler failed');
              if (failures < delivery.maxAttempts) {
                await tx.execute(sql`
                  update platform.consumer_offsets set seq = ${position}, failures = ${failures}, last_error = ${describe(error)}
                  where consumer = ${consumer}`);
                return delivery.backoffMs(failures);
              }
              await setAsideDeadEvent(tx, consumer, event.id, error, failures, row.event_id);
              logger.error({ consumer, eventId: event.id, type: event.type }, 'event set aside after repeated failures');
              failures = 0;
              wait = 0;
            }
          }
          position = Number(row.seq);
          failures = 0;
        }
      }
      await tx.execute(sql`
        update platform.consumer_offsets set seq = ${position}, failures = 0, last_error = null where consumer = ${consumer}`);
      return wait;
    });
    await runAfterCommit(committed, logger, consumer);
    return next;
  }

  // Wakes of each consumer so far, counted while it works too: one that came during its delivery (the
  // relay numbered events while the consumer was reading others) is not lost (its loop compares counts).
  const wakes = new Map<string, number>();
  wake.on('deliver', (types?: EventType[]) => {
    for (const { consumer, types: reads } of subscriptions)
      if (!types || types.some((type) => reads.includes(type))) wakes.set(consumer, (wakes.get(consumer) ?? 0) + 1);
  });

  // The loops take turns: one starts its step per turn of the event loop, after the requests that
  // arrived meanwhile. An embedded database answers on this thread, so back-to-back batches, or every
  // consumer woken by one relay run going at once, would otherwise hold the server for all of them.
  let turns: Promise<void> = Promise.resolve();
  function nextTurn(): Promise<void> {
    turns = turns.then(() => new Promise((resolve) => setImmediate(resolve)));
    return turns;
  }

  /** Runs `step` over and over, waiting what it answers (0: go on at once); a consumer's steps start `spacing` ms apart unless it is behind. */
  function loop(step: () => Promise<number>, name: string, spacing = 0): Promise<void> {
    return (async () => {
      while (running) {
        let wait = pollMs;
        await nextTurn();
        const started = Date.now();
        // A consumer's wakes before its step: one that comes while it works (the relay numbered events
        // while it read others, on another connection) sends it round again once its spacing has passed.
        const seen = wakes.get(name) ?? 0;
        try {
          wait = await step();
        } catch (error) {
          if (!running) break;
          logger.error({ err: error, loop: name }, 'bus loop failed; retrying');
        }
        if (wait > 0 && running) await sleepUntilWoken(wait, name === 'relay' ? 'relay' : 'deliver', name, started + spacing, seen);
      }
    })();
  }

  /**
   * Waits `ms`, or until woken: the relay by a nudge, a consumer by numbered events of a type it
   * reads (`types` undefined: of unknown types, as a NOTIFY from another process says), or at once
   * when it was woken since `seen` (its count of wakes); a wake before `notBefore` (a time) takes
   * effect then. Stopping the bus ends every wait at once.
   */
  function sleepUntilWoken(ms: number, channel: 'relay' | 'deliver', name: string, notBefore: number, seen: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout;
      const finish = () => {
        clearTimeout(timer);
        wake.off(channel, woken);
        wake.off('stop', finish);
        resolve();
      };
      // A consumer's wakes are its count's (counted by the listener added first, so before this one).
      const woken = () => {
        if (channel === 'deliver' && (wakes.get(name) ?? 0) === seen) return;
        const early = notBefore - Date.now();
        if (early <= 0) return finish();
        wake.off(channel, woken);
        clearTimeout(timer);
        timer = setTimeout(finish, early);
      };
      timer = setTimeout(finish, ms);
      wake.on(channel, woken);
      wake.on('stop', finish);
      // Checked where the listener is added, with nothing between: a wake cannot fall between the two.
      if (channel === 'deliver') woken();
    });
  }

  let nudged: NodeJS.Timeout | null = null;

  return {
    kind: 'postgres',
    subscribe(consumer: string, types: readonly EventType[], handler: EventHandler) {
      if (running) throw new Error('subscribe before the bus starts');
      subscriptions.push({ consumer, types, handler });
    },
    subscribeBatch(consumer: string, types: readonly EventType[], batch: BatchEventHandler) {
      if (running) throw new Error('subscribe before the bus starts');
      subscriptions.push({ consumer, types, handler: oneAtATime(batch), batch });
    },
    nudge() {
      nudged ??= setTimeout(() => {
        nudged = null;
        wake.emit('relay');
      }, NUDGE_COALESCE_MS);
    },
    // The outbox is its log: it is up whenever the database is, which /readyz checks itself.
    health: () => 'up',
    async start() {
      running = true;
      for (const { consumer } of subscriptions)
        await database.db.execute(sql`insert into platform.consumer_offsets (consumer) values (${consumer}) on conflict do nothing`);
      if (database.kind === 'postgres')
        unlisten = await database.listen(CHANNEL, (payload) => {
          // This process's own relay woke its consumers already. Another's wakes the relay too (its
          // nudge may have come while that one held the lock), and the consumers of the types it
          // numbered; null (the LISTEN was lost and came back, with what was sent meanwhile), all.
          const notice = payload === null ? null : noticeOf(payload);
          if (notice?.from === processId) return;
          wake.emit('relay');
          wake.emit('deliver', notice?.types);
        });
      loops.push(
        loop(async () => {
          const { count, types } = await sequenceCommittedEvents();
          if (count > 0) wake.emit('deliver', types);
          return count >= RELAY_BATCH ? 0 : pollMs;
        }, 'relay'),
      );
      for (const subscription of subscriptions) {
        // An operator's replay is looked for at most once a pollMs (a transaction of its own), not on every delivery.
        let replaysLooked = 0;
        loops.push(
          loop(
            async () => {
              if (Date.now() - replaysLooked >= pollMs) {
                replaysLooked = Date.now();
                await replayRequested(database, subscription.consumer, subscription.handler, logger);
              }
              return deliverBatch(subscription);
            },
            subscription.consumer,
            spacingMs,
          ),
        );
      }
    },
    async stop() {
      running = false;
      if (nudged) clearTimeout(nudged);
      nudged = null;
      wake.emit('stop');
      await Promise.all(loops.splice(0));
      await unlisten?.();
      unlisten = null;
    },
  };
}

/** What a relay's NOTIFY says: the process that sent it, and the types it numbered (undefined: unknown, wake every consumer). */
function noticeOf(payload: string): { from: string | null; types: EventType[] | undefined } {
  try {
    const notice = JSON.parse(payload) as { from?: unknown; types?: unknown };
    const types = Array.isArray(notice.types) && notice.types.every((type) => typeof type === 'string') ? (notice.types as EventType[]) : undefined;
    return { from: typeof notice.from === 'string' ? notice.from : null, types };
  } catch {
    return { from: null, types: undefined };
  }
}
