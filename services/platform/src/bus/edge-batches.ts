import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../db/database.ts';

/**
 * A gateway's edge answers at once and keeps what it received as it came, a batch a row
 * (`platform.edge_batches`); the module that owns the edge turns the batches into events later,
 * wherever that module runs: Snowplow's collector and enrichment. The edge's process then does the
 * least a request can cost, and the reading, cleaning and encoding scale with the module.
 */

/** Writes one batch an edge received (its own text format, which only its module reads). */
export async function appendEdgeBatch(db: Executor, edge: string, body: string): Promise<void> {
  await db.execute(sql`insert into platform.edge_batches (edge, body) values (${edge}, ${body})`);
}

/** A batch as its taker gets it. */
export interface EdgeBatch {
  id: number;
  body: string;
}

/**
 * Takes the oldest batch of `edge` and hands it to `handle` inside the transaction that deletes it:
 * what `handle` writes (its events, in the outbox) commits exactly when the batch goes, so a batch
 * becomes its events once, whatever fails or crashes. One taker at a time across processes (an
 * advisory lock), so the events follow the batches' order. Answers false when there was none to
 * take or another taker holds the lock.
 */
export async function takeEdgeBatch(database: Database, edge: string, handle: (tx: Executor, batch: EdgeBatch) => Promise<void>): Promise<boolean> {
  return database.transaction(async (tx) => {
    const [lock] = await queryRows<{ taken: boolean }>(tx, sql`select pg_try_advisory_xact_lock(hashtext(${`platform.edge_batches:${edge}`})) as taken`);
    if (!lock?.taken) return false;
    const [batch] = await queryRows<{ id: string | number; body: string }>(tx, sql`select id, body from platform.edge_batches where edge = ${edge} order by id limit 1`);
    if (!batch) return false;
    await handle(tx, { id: Number(batch.id), body: batch.body });
    await tx.execute(sql`delete from platform.edge_batches where id = ${batch.id}`);
    return true;
  });
}
