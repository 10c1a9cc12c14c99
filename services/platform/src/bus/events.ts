import { randomUUID } from 'node:crypto';
import { checkPayload, type EventType } from '@cliffhanger/proto';
import { SpanKind } from '@opentelemetry/api';
import { sql } from 'drizzle-orm';
import type { Attribution, RequestContext } from '../context.ts';
import type { Executor } from '../db/database.ts';
import { continuing, inSpan, traceparentOf } from '../observability/tracing.ts';

export { eventTypes, type EventType } from '@cliffhanger/proto';

export interface BusEvent<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  time: string;
  userId: string | null;
  attribution: Attribution;
  data: T;
  /**
   * The W3C trace context of its outbox span, when it was written in a trace (a request, a
   * consumer): its consumers' spans are children of that span.
   */
  traceparent?: string;
}

/**
 * Writes an event to the outbox inside the caller's transaction, so it exists exactly when the
 * change that caused it does. The relay publishes it after commit. Written in a trace (the active
 * span, else the context's `traceparent`), it is a `publish` span of it and carries that span's context.
 */
export async function appendEvent<T extends Record<string, unknown>>(
  tx: Executor,
  context: RequestContext,
  type: EventType,
  data: T,
  userId: string | null = context.userId,
): Promise<BusEvent<T>> {
  checkPayload(type, data);
  const id = randomUUID();
  const attributes = { 'messaging.system': 'outbox', 'messaging.operation.type': 'send', 'messaging.destination.name': type, 'messaging.message.id': id };
  // Kept by hand: the outbox is a table, which no instrumentation knows as a queue.
  return inSpan(`publish ${type}`, { kind: SpanKind.PRODUCER, attributes }, continuing(context.traceparent), async (publishing) => {
    const traceparent = publishing ? traceparentOf(publishing) : undefined;
    const event: BusEvent<T> = {
      id,
      type,
      time: new Date().toISOString(),
      userId,
      attribution: context.attribution,
      data,
      ...(traceparent && { traceparent }),
    };
    await tx.execute(sql`
      insert into platform.outbox (event_id, type, occurred_at, user_id, attribution, data, traceparent)
      values (${event.id}, ${type}, ${event.time}, ${userId}, ${JSON.stringify(event.attribution)}::jsonb, ${JSON.stringify(data)}::jsonb, ${traceparent ?? null})`);
    return event;
  });
}

/** One event of a batch `appendEvents` writes. */
export interface BatchedEvent {
  context: RequestContext;
  type: EventType;
  data: Record<string, unknown>;
  userId: string | null;
  /** When it happened: a buffered pixel hit is written a moment after it arrived. */
  occurredAt: Date;
}

/**
 * Writes many events in one statement inside the caller's transaction, a row each: no span each,
 * and each keeps its own context's `traceparent`.
 */
export async function appendEvents(tx: Executor, events: BatchedEvent[]): Promise<void> {
  if (events.length === 0) return;
  for (const { type, data } of events) checkPayload(type, data);
  // One parameter per column, whatever the batch's size: the statement is built once, not per row.
  const column = <T>(of: (event: BatchedEvent) => T) => sql.param(events.map(of));
  await tx.execute(sql`
    insert into platform.outbox (event_id, type, occurred_at, user_id, attribution, data, traceparent)
    select * from unnest(
      ${column(() => randomUUID())}::uuid[], ${column((event) => event.type)}::text[], ${column((event) => event.occurredAt.toISOString())}::timestamptz[],
      ${column((event) => event.userId)}::text[], ${column((event) => JSON.stringify(event.context.attribution))}::jsonb[],
      ${column((event) => JSON.stringify(event.data))}::jsonb[], ${column((event) => event.context.traceparent ?? null)}::text[])`);
}

/** An event inside a batch row, as `data` holds it: what a row of its own holds in columns. */
interface BatchEntry {
  id: string;
  /** When it happened, ISO 8601: a buffered pixel hit is written a moment after it arrived. */
  time: string;
  userId: string | null;
  attribution: Attribution;
  data: Record<string, unknown>;
  traceparent?: string;
}

/**
 * Writes many events of one type as ONE outbox row whose `data` is the array of them (the pixel's
 * hits, thousands a second): a row and its numbering cost far more than its bytes, and the array
 * goes in as the text of a JSON string, which PostgreSQL stores without parsing every event. Each keeps its
 * own id, time, user, attribution and trace; both buses hand them on one by one, as if each had a
 * row (`eventsFromRow`), and a dead letter of one points at its row. They are built by one piece of
 * code, so the first stands for the shape of all against the proto schema.
 */
export async function appendEventBatch(tx: Executor, type: EventType, events: Omit<BatchEntry, 'id'>[]): Promise<void> {
  const [first] = events;
  if (!first) return;
  checkPayload(type, first.data);
  const entries = events.map((event): BatchEntry => ({ id: randomUUID(), ...event }));
  await tx.execute(sql`
    insert into platform.outbox (event_id, type, occurred_at, user_id, attribution, data)
    values (${randomUUID()}, ${type}, ${entries[0]!.time}, null, '{}'::jsonb, to_jsonb(${JSON.stringify(entries)}::text))`);
}

export interface OutboxRow {
  seq: string | number | null;
  event_id: string;
  type: string;
  occurred_at: string | Date;
  user_id: string | null;
  attribution: Attribution | string;
  data: Record<string, unknown> | string;
  traceparent: string | null;
}

/** The outbox columns an event is read from (`eventFromRow`). */
export const outboxColumns = sql.raw('seq, event_id, type, occurred_at, user_id, attribution, data, traceparent');

const parsed = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/**
 * The events an outbox row holds: itself, or each of a batch (`appendEventBatch`), in their order.
 * An event's id is its row's `event_id` exactly when the row holds it alone.
 */
export function eventsFromRow(row: OutboxRow): BusEvent[] {
  // A batch's `data` is a JSON string holding the array's text (PostgreSQL stores it without
  // parsing each event); a row of its own holds an object.
  let data = parsed(row.data) as unknown;
  if (typeof data === 'string') data = JSON.parse(data);
  if (!Array.isArray(data)) return [eventFromRow(row)];
  return (data as BatchEntry[]).map((entry) => ({
    id: entry.id,
    type: row.type as EventType,
    time: new Date(entry.time).toISOString(),
    userId: entry.userId,
    attribution: entry.attribution,
    data: entry.data,
    ...(entry.traceparent && { traceparent: entry.traceparent }),
  }));
}

function eventFromRow(row: OutboxRow): BusEvent {
  return {
    id: row.event_id,
    type: row.type as EventType,
    time: new Date(row.occurred_at).toISOString(),
    userId: row.user_id,
    attribution: parsed(row.attribution),
    data: parsed(row.data),
    ...(row.traceparent && { traceparent: row.traceparent }),
  };
}
