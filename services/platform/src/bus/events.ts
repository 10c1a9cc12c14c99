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
 * Writes many events in one statement inside the caller's transaction (the pixel's batches of
 * hits): no span each, and each keeps its own context's `traceparent`.
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

export function eventFromRow(row: OutboxRow): BusEvent {
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
