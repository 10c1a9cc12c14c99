import { EventEmitter } from 'node:events';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { queryRows, type Database } from '../db/database.ts';
import { defaultDeliveryPolicy, type DeliveryPolicy, type EventBus, type EventHandler, type Subscription } from './bus.ts';
import { applyOnce, describe, replayRequested, runAfterCommit, setAsideDeadEvent, type AfterCommit } from './delivery.ts';
import { eventsFromRow, type EventType, type OutboxRow } from './events.ts';

const RELAY_LOCK = 72_617_002;
const CHANNEL = 'cliffhanger_bus';
const BATCH = 100;
// Nudges within this long (50 ms) wake the relay once: under load one relay run numbers many events instead
// of a run per event (the relay's transaction costs about as much as the change that nudged it).
const NUDGE_COALESCE_MS = 50;

export interface PostgresBusOptions {
  /** How often the relay looks for committed events nobody nudged it about. */
  pollMs?: number;
  /**
   * How long a consumer with nothing left to read waits for a wake before looking again (default
   * `pollMs`). The relay wakes it whenever it numbers events of a type it reads, so the look is for
   * what no wake announces: an operator's replay, a consumer another process held.
   */
  idleMs?: number;
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
  const delivery = options.delivery ?? defaultDeliveryPolicy;
  const subscriptions: Subscription[] = [];
  const wake = new EventEmitter();
  wake.setMaxListeners(0);
  let running = false;
  const loops: Promise<void>[] = [];
  let unlisten: (() => Promise<void>) | null = null;

  /** Numbers committed events; answers their types (a consumer wakes only for types it reads). */
  async function sequenceCommittedEvents(): Promise<EventType[]> {
    return database.rawTransaction(async (session) => {
      const [lock] = await session.query<{ locked: boolean }>('select pg_try_advisory_xact_lock($1) as locked', [RELAY_LOCK]);
      if (!lock?.locked) return [];
      // Numbered on from the highest number, read by this statement after the lock: the last relay's
      // numbers are committed by then.
      const numbered = await session.query(
        `update platform.outbox o set seq = (select coalesce(max(seq), 0) from platform.outbox) + p.rn
           from (select id, row_number() over (order by id) as rn from platform.outbox
                  where seq is null order by id limit $1) p
          where o.id = p.id returning o.type`,
        [BATCH * 5],
      );
      if (numbered.length > 0 && database.kind === 'postgres') await session.query(`select pg_notify('${CHANNEL}', '')`);
      return numbered.map((row) => (row as { type: EventType }).type);
    });
  }

  /** Delivers the next batch to one consumer; answers how long to wait before the next call. */
  async function deliverBatch(subscription: Subscription): Promise<number> {
    const { consumer, types, handler } = subscription;
    const committed: AfterCommit[] = [];
    const wakesBefore = wakes.get(consumer);
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
              from platform.outbox where seq > ${Number(offset.seq)} order by seq limit ${BATCH}`,
      );
      let position = Number(offset.seq);
      let failures = offset.failures;
      let wait = rows.length === BATCH ? 0 : idleMs;
      let handed = 0;
      for (const row of rows) {
        // A batch row (the pixel's hits) is delivered whole: its events already applied are
        // skipped by their processed marks when a failure brings the row back.
        for (const event of types.includes(row.type as EventType) ? eventsFromRow(row) : []) {
          handed += 1;
          try {
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
        // Batch rows hold hundreds each: one transaction handles about a batch's worth of events.
        if (handed >= BATCH * 5) {
          wait = 0;
          break;
        }
      }
      await tx.execute(sql`
        update platform.consumer_offsets set seq = ${position}, failures = 0, last_error = null where consumer = ${consumer}`);
      return wait === idleMs && wakes.get(consumer) !== wakesBefore ? 0 : wait;
    });
    await runAfterCommit(committed, logger, consumer);
    return next;
  }

  // Wakes of each consumer so far, counted while it works too: one that came during its delivery (the
  // relay numbered events while the consumer was reading others) sends it round again at once.
  const wakes = new Map<string, number>();
  wake.on('deliver', (types?: EventType[]) => {
    for (const { consumer, types: reads } of subscriptions)
      if (!types || types.some((type) => reads.includes(type))) wakes.set(consumer, (wakes.get(consumer) ?? 0) + 1);
  });

  function loop(step: () => Promise<number>, name: string): Promise<void> {
    return (async () => {
      while (running) {
        let wait = pollMs;
        try {
          wait = await step();
        } catch (error) {
          if (!running) break;
          logger.error({ err: error, loop: name }, 'bus loop failed; retrying');
        }
        if (wait > 0 && running) await sleepUntilWoken(wait, name === 'relay' ? 'relay' : 'deliver', name);
        // More to do at once: let requests in first. An embedded database answers on this thread,
        // so back-to-back batches would otherwise never hand the event loop to the server.
        else await new Promise((resolve) => setImmediate(resolve));
      }
    })();
  }

  /**
   * Waits `ms`, or until woken: the relay by a nudge, a consumer by numbered events of a type it
   * reads (`types` undefined: of unknown types, as a NOTIFY from another process says).
   */
  function sleepUntilWoken(ms: number, channel: 'relay' | 'deliver', name: string): Promise<void> {
    const reads = subscriptions.find((subscription) => subscription.consumer === name)?.types;
    return new Promise((resolve) => {
      const done = (types?: EventType[]) => {
        if (channel === 'deliver' && types && reads && !types.some((type) => reads.includes(type))) return;
        clearTimeout(timer);
        wake.off(channel, done);
        wake.off('stop', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake.on(channel, done);
      wake.on('stop', done);
    });
  }

  let nudged: NodeJS.Timeout | null = null;

  return {
    kind: 'postgres',
    subscribe(consumer: string, types: readonly EventType[], handler: EventHandler) {
      if (running) throw new Error('subscribe before the bus starts');
      subscriptions.push({ consumer, types, handler });
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
        unlisten = await database.listen(CHANNEL, () => {
          wake.emit('relay');
          wake.emit('deliver');
        });
      loops.push(
        loop(async () => {
          const numbered = await sequenceCommittedEvents();
          if (numbered.length > 0) wake.emit('deliver', [...new Set(numbered)]);
          return numbered.length >= BATCH * 5 ? 0 : pollMs;
        }, 'relay'),
      );
      for (const subscription of subscriptions)
        loops.push(
          loop(async () => {
            await replayRequested(database, subscription.consumer, subscription.handler, logger);
            return deliverBatch(subscription);
          }, subscription.consumer),
        );
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
