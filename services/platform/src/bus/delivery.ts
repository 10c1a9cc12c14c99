import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/database.ts';
import type { EventHandler } from './bus.ts';
import type { BusEvent } from './events.ts';

/**
 * Applies `event` for `consumer` at most once: the processed mark and the handler's writes share
 * `tx`, so either both land or neither does. Answers false when the event was already applied.
 */
export async function applyOnce(tx: Executor, consumer: string, event: BusEvent, handler: EventHandler): Promise<boolean> {
  const marked = await queryRows(
    tx,
    sql`insert into platform.processed_events (consumer, event_id) values (${consumer}, ${event.id})
        on conflict do nothing returning event_id`,
  );
  if (marked.length === 0) return false;
  await handler(event, tx);
  return true;
}

export async function setAsideDeadEvent(tx: Executor, consumer: string, eventId: string, error: unknown): Promise<void> {
  await tx.execute(sql`
    insert into platform.dead_events (consumer, event_id, error) values (${consumer}, ${eventId}, ${describe(error)})
    on conflict do nothing`);
}

export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Retry delay after `failures` consecutive failures: 0.5 s doubling, at most 30 s. */
export function backoffMs(failures: number): number {
  return Math.min(30_000, 500 * 2 ** Math.max(0, failures - 1));
}
