import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEdgeBatch, queryRows, takeEdgeBatch, type Database, type EdgeBatch } from '../src/index.ts';
import { openMigratedDatabase } from '../src/testing/index.ts';

// What a gateway's edge stores, taken by the module that owns it (edge-batches.ts), on PGlite and
// on PostgreSQL in npm test's second pass.
let database: Database;
beforeAll(async () => {
  database = await openMigratedDatabase();
});
afterAll(() => database.close());

const waiting = async () => (await queryRows<{ edge: string; body: string }>(database.db, sql`select edge, body from platform.edge_batches order by id`)).map((row) => `${row.edge}:${row.body}`);

describe("an edge's stored batches", () => {
  it('are taken oldest first, each edge on its own, and gone once taken', async () => {
    for (const body of ['one', 'two']) await appendEdgeBatch(database.db, 'pixel', body);
    await appendEdgeBatch(database.db, 'other', 'elsewhere');
    const seen: EdgeBatch[] = [];
    while (await takeEdgeBatch(database, 'pixel', async (_tx, batch) => void seen.push(batch))) {
      // Each take hands on one batch.
    }
    expect(seen.map((batch) => batch.body)).toEqual(['one', 'two']);
    expect(seen[0]!.id).toBeLessThan(seen[1]!.id);
    expect(await waiting()).toEqual(['other:elsewhere']);
    expect(await takeEdgeBatch(database, 'pixel', async () => {})).toBe(false);
    await database.db.execute(sql`delete from platform.edge_batches`);
  });

  it('stay when what their taker writes fails, and none of that writing is kept', async () => {
    await appendEdgeBatch(database.db, 'pixel', 'kept');
    await database.db.execute(sql`create table if not exists public.taken_into (body text not null)`);
    const failing = takeEdgeBatch(database, 'pixel', async (tx, batch) => {
      await tx.execute(sql`insert into public.taken_into (body) values (${batch.body})`);
      throw new Error('the outbox is away');
    });
    await expect(failing).rejects.toThrow('the outbox is away');
    expect(await waiting()).toEqual(['pixel:kept']);
    expect(await queryRows(database.db, sql`select body from public.taken_into`)).toEqual([]);
    expect(await takeEdgeBatch(database, 'pixel', async (tx, batch) => void (await tx.execute(sql`insert into public.taken_into (body) values (${batch.body})`)))).toBe(true);
    expect(await waiting()).toEqual([]);
    expect(await queryRows(database.db, sql`select body from public.taken_into`)).toEqual([{ body: 'kept' }]);
  });
});
