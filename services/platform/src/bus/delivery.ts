import { context, SpanKind, trace, type Context } from '@opentelemetry/api';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { queryRows, type Database, type Executor } from '../db/database.ts';
import { failed, inSpan, remoteContext, startSpan } from '../observability/tracing.ts';
import type { BatchEventHandler, EventHandler } from './bus.ts';
import { eventsFromRow, type BusEvent, type OutboxRow } from './events.ts';

/**
 * Applies `event` for `consumer` at most once: the processed mark and the handler's writes share
 * `tx`, so either both land or neither does. Answers false when the event was already applied.
 * An event written in a trace is handled in a `process` span, child of its `publish` span, on either bus.
 */
export async function applyOnce(tx: Executor, consumer: string, event: BusEvent, handler: EventHandler, committed: AfterCommit[]): Promise<boolean> {
  if ((await markProcessed(tx, consumer, [event.id])).size === 0) return false;
  await applyMarked(tx, consumer, event, handler, committed);
  return true;
}

export type AfterCommit = () => unknown;

/** Marks `eventIds` processed for `consumer` in one statement; answers those not marked before (the ones to apply). */
export async function markProcessed(tx: Executor, consumer: string, eventIds: string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const marked = await queryRows<{ event_id: string }>(
    tx,
    sql`insert into platform.processed_events (consumer, event_id)
        select ${consumer}, id from unnest(${sql.param(eventIds)}::uuid[]) as id
        on conflict do nothing returning event_id::text`,
  );
  // PostgreSQL prints a uuid in lower case, whatever case it was given in.
  const fresh = new Set(marked.map((row) => row.event_id));
  return new Set(eventIds.filter((id) => fresh.has(id.toLowerCase())));
}

/** Runs `handler` on an event `markProcessed` just marked, in its `process` span; its after-commit work joins `committed`. */
export async function applyMarked(tx: Executor, consumer: string, event: BusEvent, handler: EventHandler, committed: AfterCommit[]): Promise<void> {
  const own: AfterCommit[] = [];
  await inSpan(`process ${event.type}`, { kind: SpanKind.CONSUMER, attributes: processAttributes(consumer, event) }, processParent(event), () =>
    handler(event, tx, { afterCommit: (work) => own.push(work) }),
  );
  // Only a handler that succeeded leaves work for after the commit: a failed one's savepoint rolled back.
  committed.push(...own);
}

/**
 * Runs a batch handler on events `markProcessed` just marked, together: each event still gets its
 * own `process` span (child of its `publish` span), open while the batch is applied and marked failed
 * with it, and the handler runs in the first traced event's span.
 */
export async function applyMarkedBatch(tx: Executor, consumer: string, events: BusEvent[], handler: BatchEventHandler, committed: AfterCommit[]): Promise<void> {
  const own: AfterCommit[] = [];
  const spans = events.flatMap((event) => {
    const parent = processParent(event);
    return parent ? [startSpan(`process ${event.type}`, { kind: SpanKind.CONSUMER, attributes: processAttributes(consumer, event) }, parent)] : [];
  });
  const work = () => handler(events, tx, { afterCommit: (job) => own.push(job) });
  try {
    await (spans[0] ? context.with(trace.setSpan(context.active(), spans[0]), work) : work());
  } catch (error) {
    for (const span of spans) failed(span, error);
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
  committed.push(...own);
}

const processAttributes = (consumer: string, event: BusEvent) => ({
  'messaging.operation.type': 'process',
  'messaging.destination.name': event.type,
  'messaging.message.id': event.id,
  'messaging.consumer.group.name': consumer,
});

/**
 * The parent of an event's `process` span: on Kafka, kafkajs's span of the message when it continues
 * the event's trace (the relay sends the outbox's `traceparent`); else the event's `publish` span.
 * Kept by hand: no library knows the outbox or the Postgres bus, which is a table.
 */
function processParent(event: BusEvent): Context | null {
  if (!event.traceparent) return null;
  const active = trace.getSpanContext(context.active());
  return active && event.traceparent.split('-')[1] === active.traceId ? context.active() : remoteContext(event.traceparent);
}

/** Runs the handlers' after-commit work of a delivery whose transaction committed, each on its own. */
export async function runAfterCommit(committed: AfterCommit[], logger: Logger, consumer: string): Promise<void> {
  for (const work of committed.splice(0)) {
    try {
      await work();
    } catch (error) {
      logger.error({ consumer, err: error }, 'after-commit work of an event handler failed');
    }
  }
}

/** Sets an event aside for `consumer`; `outboxEventId` names the outbox row holding it, when a batch row does. */
export async function setAsideDeadEvent(tx: Executor, consumer: string, eventId: string, error: unknown, attempts = 1, outboxEventId?: string): Promise<void> {
  const holder = outboxEventId && outboxEventId !== eventId ? outboxEventId : null;
  await tx.execute(sql`
    insert into platform.dead_events (consumer, event_id, error, attempts, outbox_event_id)
    values (${consumer}, ${eventId}, ${describe(error)}, ${attempts}, ${holder})
    on conflict do nothing`);
}

export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Tries again the dead letters of `consumer` an operator asked to replay: each in its own
 * transaction, applied at most once like any delivery; one that works leaves platform.dead_events,
 * one that fails again stays with its new error and waits for the next request. Answers how many worked.
 */
export async function replayRequested(database: Database, consumer: string, handler: EventHandler, logger: Logger): Promise<number> {
  let replayed = 0;
  for (;;) {
    const committed: AfterCommit[] = [];
    const outcome = await database.transaction(async (tx) => {
      // A transaction run again (a deadlock's victim) keeps only what its last run left to do.
      committed.length = 0;
      const [row] = await queryRows<OutboxRow & { dead_id: string }>(
        tx,
        sql`select d.event_id as dead_id, o.seq, o.event_id, o.type, o.occurred_at, o.user_id, o.attribution, o.data, o.traceparent
              from platform.dead_events d join platform.outbox o on o.event_id = coalesce(d.outbox_event_id, d.event_id)
             where d.consumer = ${consumer} and d.replay_requested_at is not null
             order by o.id limit 1 for update of d skip locked`,
      );
      if (!row) return 'none' as const;
      const event = eventsFromRow(row).find((held) => held.id === row.dead_id);
      if (!event) {
        // Its row holds no such event (never the case unless rewritten by hand): nothing to replay.
        await tx.execute(sql`delete from platform.dead_events where consumer = ${consumer} and event_id = ${row.dead_id}`);
        logger.error({ consumer, eventId: row.dead_id }, 'dead event not found in its outbox row; dropped');
        return 'failed' as const;
      }
      try {
        await tx.transaction((savepoint) => applyOnce(savepoint as never, consumer, event, handler, committed));
        await tx.execute(sql`delete from platform.dead_events where consumer = ${consumer} and event_id = ${event.id}`);
        logger.info({ consumer, eventId: event.id, type: event.type }, 'dead event replayed');
        return 'replayed' as const;
      } catch (error) {
        logger.warn({ consumer, eventId: event.id, type: event.type, err: error }, 'dead event failed again');
        await tx.execute(sql`
          update platform.dead_events set error = ${describe(error)}, failed_at = now(), attempts = attempts + 1, replay_requested_at = null
           where consumer = ${consumer} and event_id = ${event.id}`);
        return 'failed' as const;
      }
    });
    await runAfterCommit(committed, logger, consumer);
    if (outcome === 'none') return replayed;
    if (outcome === 'replayed') replayed += 1;
  }
}
