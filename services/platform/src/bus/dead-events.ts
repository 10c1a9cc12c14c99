import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/database.ts';

export interface DeadEvent {
  consumer: string;
  eventId: string;
  type: string;
  occurredAt: string;
  error: string;
  failedAt: string;
  attempts: number;
  /** Set when an operator asked for a replay that has not run yet. */
  replayRequestedAt: string | null;
}

/** Events a consumer set aside after its retries, newest first: what an operator looks at. */
export async function listDeadEvents(db: Executor, limit = 100): Promise<DeadEvent[]> {
  const rows = await queryRows<{ consumer: string; event_id: string; type: string; occurred_at: string | Date; error: string; failed_at: string | Date; attempts: number; replay_requested_at: string | Date | null }>(
    db,
    sql`select d.consumer, d.event_id, o.type, d.error, d.failed_at, d.attempts, d.replay_requested_at,
               case when d.outbox_event_id is null then o.occurred_at
                    else (select (held->>'time')::timestamptz from jsonb_array_elements((o.data #>> '{}')::jsonb) held where held->>'id' = d.event_id::text) end as occurred_at
          from platform.dead_events d left join platform.outbox o on o.event_id = coalesce(d.outbox_event_id, d.event_id)
         order by d.failed_at desc limit ${limit}`,
  );
  const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());
  return rows.map((row) => ({
    consumer: row.consumer,
    eventId: row.event_id,
    type: row.type,
    occurredAt: iso(row.occurred_at)!,
    error: row.error,
    failedAt: iso(row.failed_at)!,
    attempts: row.attempts,
    replayRequestedAt: iso(row.replay_requested_at),
  }));
}

/**
 * Asks the consumers to try these events again (every dead event without ids): each consumer's own
 * process replays them on its next turn. Answers how many dead letters were put back.
 */
export async function requestReplay(db: Executor, eventIds?: string[]): Promise<number> {
  const rows = await queryRows<{ event_id: string }>(
    db,
    eventIds
      ? sql`update platform.dead_events set replay_requested_at = now() where event_id::text = any(${sql.param(eventIds)}::text[]) returning event_id`
      : sql`update platform.dead_events set replay_requested_at = now() returning event_id`,
  );
  return rows.length;
}
