import fs from 'node:fs';
import path from 'node:path';
import { createLakeStorage, eventTypes, queryRows, type Background, type BusEvent, type Database, type EventBus, type MediaStorage, type Platform } from '@cliffhanger/platform';
import { sql } from 'drizzle-orm';
import { openParquetWriter, temporaryLakeDir, type LakeFile, type LakeRow } from './lake-parquet.ts';

/** The sink's consumer: every event type. */
export const LAKE_CONSUMER = 'analytics.lake';
/** A batch claimed this long ago and not finished was left by a process that died: another writes it again. */
const LEASE_MS = 10 * 60_000;
const RETENTION_EVERY_MS = 60 * 60_000;

export interface LakeOptions {
  /** Events that start a file at once (LAKE_FILE_EVENTS). */
  fileEvents: number;
  /** The longest an event waits for its file (LAKE_FLUSH_MS). */
  flushMs: number;
  /** Days a day's files are kept (LAKE_RETENTION_DAYS). */
  retentionDays: number;
}

type LakePlatform = Pick<Platform, 'config' | 'database' | 'bus' | 'logger'>;

/**
 * The lake (docs/analytics.md): every event also lands as Parquet, `type=<t>/date=<d>/<first>-<last>.parquet`
 * in the bucket or DATA_DIR/lake, off the request path. Consumer `analytics.lake` stages each event
 * in the transaction that marks it processed (once per event id, whatever the bus). The background
 * flusher then, per LAKE_FILE_EVENTS staged or every LAKE_FLUSH_MS:
 *  1. claims the oldest unclaimed staged rows as a batch, committed with its range of staged ids;
 *  2. writes the batch's files, each named by that range (a temporary name, then renamed or put);
 *  3. deletes the batch and its rows, and records the files, in one transaction.
 * A crash before 3 leaves the batch claimed: it is written again under the same names, replacing
 * the files, so no event is in two files and none is lost. The files are kept LAKE_RETENTION_DAYS,
 * whatever the outbox keeps.
 */
export function createLake(platform: LakePlatform, storage: MediaStorage = createLakeStorage(platform.config), options?: Partial<LakeOptions>) {
  const { database, logger, config } = platform;
  const settings: LakeOptions = { fileEvents: config.LAKE_FILE_EVENTS, flushMs: config.LAKE_FLUSH_MS, retentionDays: config.LAKE_RETENTION_DAYS, ...options };
  let stagedSince = 0;
  let wake: (() => void) | null = null;

  subscribeLake(platform.bus, () => {
    stagedSince++;
    if (stagedSince >= settings.fileEvents) wake?.();
  });

  return {
    /** Writes every batch staged so far (claimed and left by a crash first); answers the files written. */
    flush: (leaseMs?: number) => flushLake(database, storage, settings.fileEvents, leaseMs),
    /** Deletes the files of days past the retention; answers how many. */
    prune: () => pruneLake(database, storage, settings.retentionDays),
    /** The flusher and the daily pruning, as the module's background work. */
    start(): Background {
      let stopped = false;
      let lastPrune = 0;
      const loop = (async () => {
        while (!stopped) {
          try {
            stagedSince = 0;
            await flushLake(database, storage, settings.fileEvents);
            if (Date.now() - lastPrune >= RETENTION_EVERY_MS) {
              lastPrune = Date.now();
              const pruned = await pruneLake(database, storage, settings.retentionDays);
              if (pruned > 0) logger.info({ files: pruned }, 'lake: pruned files past LAKE_RETENTION_DAYS');
            }
          } catch (error) {
            logger.warn({ err: error }, 'lake: writing files failed; retrying');
          }
          if (stopped) break;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, settings.flushMs);
            timer.unref();
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
      })();
      return {
        stop: async () => {
          stopped = true;
          wake?.();
          await loop;
        },
      };
    },
  };
}

/** Consumer analytics.lake: stages every event, in the delivery's transaction (a delivery's events in one statement, in their order). */
export function subscribeLake(bus: EventBus, onStaged: () => void = () => {}): void {
  bus.subscribeBatch(LAKE_CONSUMER, eventTypes, async (events, tx, effects) => {
    const column = <T>(of: (event: BusEvent) => T) => sql.param(events.map(of));
    await tx.execute(sql`
      insert into analytics.lake_staged (event_id, type, occurred_at, user_id, attribution, data)
      select event_id, type, occurred_at, user_id, attribution, data from unnest(
        ${column((event) => event.id)}::uuid[], ${column((event) => event.type)}::text[], ${column((event) => event.time)}::timestamptz[],
        ${column((event) => event.userId)}::text[], ${column((event) => JSON.stringify(event.attribution))}::jsonb[],
        ${column((event) => JSON.stringify(event.data))}::jsonb[]) with ordinality as staged(event_id, type, occurred_at, user_id, attribution, data, n)
      order by n`);
    effects.afterCommit(onStaged);
  });
}

interface Batch {
  id: string;
  first_id: string;
  last_id: string;
}

/** Writes batches until none is staged: a claimed one left by a crash first. Answers the files written. */
export async function flushLake(database: Database, storage: MediaStorage, fileEvents: number, leaseMs = LEASE_MS): Promise<LakeFile[]> {
  const written: LakeFile[] = [];
  const writer = await openParquetWriter();
  try {
    for (;;) {
      const batch = (await reclaim(database, leaseMs)) ?? (await claim(database, fileEvents));
      if (!batch) break;
      written.push(...(await writeBatch(database, storage, writer, batch)));
    }
  } finally {
    writer.close();
  }
  return written;
}

/** A batch claimed by a process that did not finish it within the lease (it died), now this one's. */
async function reclaim(database: Database, leaseMs: number): Promise<Batch | null> {
  const [batch] = await queryRows<Batch>(
    database.db,
    sql`update analytics.lake_batches set claimed_at = now()
         where id = (select id from analytics.lake_batches where claimed_at < now() - make_interval(secs => ${leaseMs / 1000}) order by id limit 1 for update skip locked)
         returning id::text, first_id::text, last_id::text`,
  );
  return batch ?? null;
}

/** Claims up to `fileEvents` of the oldest unclaimed staged rows as a batch: its range is fixed once committed. */
async function claim(database: Database, fileEvents: number): Promise<Batch | null> {
  return database.transaction(async (tx) => {
    const [batch] = await queryRows<{ id: string }>(tx, sql`insert into analytics.lake_batches (first_id, last_id) values (0, 0) returning id::text`);
    const [range] = await queryRows<{ first_id: string | null; last_id: string | null }>(
      tx,
      sql`with claimed as (
            update analytics.lake_staged set batch = ${batch!.id}
             where id in (select id from analytics.lake_staged where batch is null order by id limit ${fileEvents} for update skip locked)
            returning id)
          select min(id)::text as first_id, max(id)::text as last_id from claimed`,
    );
    if (!range?.first_id || !range.last_id) {
      await tx.execute(sql`delete from analytics.lake_batches where id = ${batch!.id}`);
      return null;
    }
    await tx.execute(sql`update analytics.lake_batches set first_id = ${range.first_id}, last_id = ${range.last_id} where id = ${batch!.id}`);
    return { id: batch!.id, first_id: range.first_id, last_id: range.last_id };
  });
}

async function writeBatch(database: Database, storage: MediaStorage, writer: Awaited<ReturnType<typeof openParquetWriter>>, batch: Batch): Promise<LakeFile[]> {
  const rows = await queryRows<LakeRow & { ms: string }>(
    database.db,
    sql`select event_id::text as id, type, (extract(epoch from occurred_at) * 1000)::bigint::text as ms, user_id as "userId",
               attribution->>'referrerToken' as "referrerToken", attribution->>'fbclid' as fbclid, attribution->>'ttclid' as ttclid, data::text as data
          from analytics.lake_staged where batch = ${batch.id} order by id`,
  );
  for (const row of rows) row.time = new Date(Number(row.ms)).toISOString();
  // Named by the staged ids the batch covers: the same batch, written again, takes the same names.
  const name = `${batch.first_id.padStart(12, '0')}-${batch.last_id.padStart(12, '0')}`;
  const dir = await temporaryLakeDir();
  try {
    const files = await writer.write(rows, dir, name);
    for (const file of files) await storage.putFile(file.key, path.join(dir, file.file));
    await database.transaction(async (tx) => {
      for (const file of files)
        await tx.execute(sql`
          insert into analytics.lake_files (key, type, day, events) values (${file.key}, ${file.type}, ${file.day}, ${file.events})
          on conflict (key) do update set events = excluded.events, written_at = now()`);
      await tx.execute(sql`delete from analytics.lake_staged where batch = ${batch.id}`);
      await tx.execute(sql`delete from analytics.lake_batches where id = ${batch.id}`);
    });
    return files;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** Deletes the files of days more than `retentionDays` ago; answers how many. */
export async function pruneLake(database: Database, storage: MediaStorage, retentionDays: number): Promise<number> {
  const old = await queryRows<{ key: string }>(database.db, sql`select key from analytics.lake_files where day < current_date - ${retentionDays}::integer`);
  for (const { key } of old) {
    await storage.remove(key);
    await database.db.execute(sql`delete from analytics.lake_files where key = ${key}`);
  }
  return old.length;
}

export type Lake = ReturnType<typeof createLake>;
