import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';

const RETENTION_LOCK = 72_617_003;
const EVERY_MS = 60 * 60_000;

export interface Pruned {
  outbox: number;
  processedEvents: number;
  jobs: number;
}

/**
 * Deletes what the platform no longer needs, older than the retention settings: outbox events Kafka
 * has, or on the Postgres bus every consumer is past (but never the newest: the relay numbers on from
 * it), and never one a dead letter still points at; processed-event marks, after their own longer
 * retention (a mark must outlive every copy of its event a consumer could read again); finished
 * jobs. One process at a time.
 */
export async function pruneOnce(database: Database, settings: { eventDays: number; markDays: number; jobDays: number }): Promise<Pruned | null> {
  return database.rawTransaction(async (session) => {
    const [lock] = await session.query<{ locked: boolean }>('select pg_try_advisory_xact_lock($1) as locked', [RETENTION_LOCK]);
    if (!lock?.locked) return null;
    const outbox = await session.query(
      `delete from platform.outbox o
        where o.occurred_at < now() - make_interval(days => $1)
          and (o.published_at is not null
               or (o.seq <= (select coalesce(min(seq), 0) from platform.consumer_offsets) and o.seq < (select max(seq) from platform.outbox)))
          and not exists (select 1 from platform.dead_events d where coalesce(d.outbox_event_id, d.event_id) = o.event_id)
        returning 1`,
      [settings.eventDays],
    );
    const processedEvents = await session.query(
      `delete from platform.processed_events where processed_at < now() - make_interval(days => $1) returning 1`,
      [Math.max(settings.markDays, settings.eventDays)],
    );
    const jobs = await session.query(
      `delete from platform.jobs where status in ('completed', 'dead') and finished_at < now() - make_interval(days => $1) returning 1`,
      [settings.jobDays],
    );
    return { outbox: outbox.length, processedEvents: processedEvents.length, jobs: jobs.length };
  });
}

/** Prunes now and every hour until stopped. */
export function startRetention(database: Database, config: Pick<Config, 'RETENTION_EVENT_DAYS' | 'RETENTION_MARK_DAYS' | 'RETENTION_JOB_DAYS'>, logger: Logger) {
  let running = Promise.resolve();
  const prune = () => {
    running = running
      .then(() => pruneOnce(database, { eventDays: config.RETENTION_EVENT_DAYS, markDays: config.RETENTION_MARK_DAYS, jobDays: config.RETENTION_JOB_DAYS }))
      .then(
        (pruned) => {
          if (pruned && pruned.outbox + pruned.processedEvents + pruned.jobs > 0) logger.info(pruned, 'retention: pruned');
        },
        (error: unknown) => logger.warn({ err: error }, 'retention: pruning failed'),
      );
  };
  prune();
  const timer = setInterval(prune, EVERY_MS).unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

