import { EventEmitter } from 'node:events';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { queryRows, type Database } from '../db/database.ts';
import { MAX_DELIVERY_ATTEMPTS, type EventBus, type EventHandler, type Subscription } from './bus.ts';
import { applyOnce, backoffMs, describe, setAsideDeadEvent } from './delivery.ts';
import { eventFromRow, type EventType, type OutboxRow } from './events.ts';

const RELAY_LOCK = 72_617_002;
const CHANNEL = 'cliffhanger_bus';
const BATCH = 100;

export interface PostgresBusOptions {
  pollMs?: number;
}

/**
 * The outbox is the log. One relay at a time (advisory lock) numbers committed events in commit
 * order; every consumer keeps its offset in that numbering. Works in one process on PGlite and
 * across processes on PostgreSQL, where NOTIFY wakes the others.
 */
export function createPostgresBus(database: Database, logger: Logger, options: PostgresBusOptions = {}): EventBus {
  const pollMs = options.pollMs ?? 500;
  const subscriptions: Subscription[] = [];
  const wake = new EventEmitter();
  wake.setMaxListeners(0);
  let running = false;
  const loops: Promise<void>[] = [];
  let unlisten: (() => Promise<void>) | null = null;

  async function sequenceCommittedEvents(): Promise<number> {
    return database.rawTransaction(async (session) => {
      const [lock] = await session.query<{ locked: boolean }>('select pg_try_advisory_xact_lock($1) as locked', [RELAY_LOCK]);
      if (!lock?.locked) return 0;
      const [top] = await session.query<{ seq: string | number }>('select coalesce(max(seq), 0) as seq from platform.outbox');
      const numbered = await session.query(
        `update platform.outbox o set seq = $1::bigint + p.rn
           from (select id, row_number() over (order by id) as rn from platform.outbox
                  where seq is null order by id limit $2) p
          where o.id = p.id returning o.id`,
        [Number(top?.seq ?? 0), BATCH * 5],
      );
      if (numbered.length > 0 && database.kind === 'postgres') await session.query(`select pg_notify('${CHANNEL}', '')`);
      return numbered.length;
    });
  }

  /** Delivers the next batch to one consumer; answers how long to wait before the next call. */
  async function deliverBatch(subscription: Subscription): Promise<number> {
    const { consumer, types, handler } = subscription;
    return database.transaction(async (tx) => {
      const [offset] = await queryRows<{ seq: string | number; failures: number }>(
        tx,
        sql`select seq, failures from platform.consumer_offsets where consumer = ${consumer} for update skip locked`,
      );
      if (!offset) return pollMs; // another process is delivering to this consumer
      const rows = await queryRows<OutboxRow>(
        tx,
        sql`select seq, event_id, type, occurred_at, user_id, attribution, data from platform.outbox
            where seq > ${Number(offset.seq)} order by seq limit ${BATCH}`,
      );
      let position = Number(offset.seq);
      let failures = offset.failures;
      let wait = rows.length === BATCH ? 0 : pollMs;
      for (const row of rows) {
        const event = eventFromRow(row);
        if (types.includes(event.type)) {
          try {
            await tx.transaction((savepoint) => applyOnce(savepoint as never, consumer, event, handler));
          } catch (error) {
            failures += 1;
            logger.warn({ consumer, eventId: event.id, type: event.type, failures, err: error }, 'event handler failed');
            if (failures < MAX_DELIVERY_ATTEMPTS) {
              await tx.execute(sql`
                update platform.consumer_offsets set seq = ${position}, failures = ${failures}, last_error = ${describe(error)}
                where consumer = ${consumer}`);
              return backoffMs(failures);
            }
            await setAsideDeadEvent(tx, consumer, event.id, error);
            logger.error({ consumer, eventId: event.id, type: event.type }, 'event set aside after repeated failures');
            wait = 0;
          }
        }
        position = Number(row.seq);
        failures = 0;
      }
      await tx.execute(sql`
        update platform.consumer_offsets set seq = ${position}, failures = 0, last_error = null where consumer = ${consumer}`);
      return wait;
    });
  }

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
        if (wait > 0 && running) await sleepUntilWoken(wait);
      }
    })();
  }

  function sleepUntilWoken(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake.off('wake', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake.on('wake', done);
    });
  }

  return {
    kind: 'postgres',
    subscribe(consumer: string, types: readonly EventType[], handler: EventHandler) {
      if (running) throw new Error('subscribe before the bus starts');
      subscriptions.push({ consumer, types, handler });
    },
    nudge() {
      wake.emit('wake');
    },
    ping: () => database.ping(),
    async start() {
      running = true;
      for (const { consumer } of subscriptions)
        await database.db.execute(sql`insert into platform.consumer_offsets (consumer) values (${consumer}) on conflict do nothing`);
      if (database.kind === 'postgres') unlisten = await database.listen(CHANNEL, () => wake.emit('wake'));
      loops.push(
        loop(async () => {
          const numbered = await sequenceCommittedEvents();
          if (numbered > 0) wake.emit('wake');
          return numbered >= BATCH * 5 ? 0 : pollMs;
        }, 'relay'),
      );
      for (const subscription of subscriptions) loops.push(loop(() => deliverBatch(subscription), subscription.consumer));
    },
    async stop() {
      running = false;
      wake.emit('wake');
      await Promise.all(loops.splice(0));
      await unlisten?.();
      unlisten = null;
    },
  };
}
