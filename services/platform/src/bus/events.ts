import { randomUUID } from 'node:crypto';
import { checkPayload, type EventType } from '@cliffhanger/proto';
import { sql } from 'drizzle-orm';
import type { Attribution, RequestContext } from '../context.ts';
import type { Executor } from '../db/database.ts';

export { eventTypes, type EventType } from '@cliffhanger/proto';

export interface BusEvent<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  time: string;
  userId: string | null;
  attribution: Attribution;
  data: T;
  /** The W3C trace context of the request that caused it, when that request had one. */
  traceparent?: string;
}

/**
 * Writes an event to the outbox inside the caller's transaction, so it exists exactly when the
 * change that caused it does. The relay publishes it after commit.
 */
export async function appendEvent<T extends Record<string, unknown>>(
  tx: Executor,
  context: RequestContext,
  type: EventType,
  data: T,
  userId: string | null = context.userId,
): Promise<BusEvent<T>> {
  checkPayload(type, data);
  const event: BusEvent<T> = {
    id: randomUUID(),
    type,
    time: new Date().toISOString(),
    userId,
    attribution: context.attribution,
    data,
    ...(context.traceparent && { traceparent: context.traceparent }),
  };
  await tx.execute(sql`
    insert into platform.outbox (event_id, type, occurred_at, user_id, attribution, data, traceparent)
    values (${event.id}, ${type}, ${event.time}, ${userId}, ${JSON.stringify(event.attribution)}::jsonb, ${JSON.stringify(data)}::jsonb, ${context.traceparent ?? null})`);
  return event;
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
