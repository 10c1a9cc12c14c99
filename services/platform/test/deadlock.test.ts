import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../src/index.ts';
import { createScratchDatabase, realDatabaseUrl } from '../src/testing/index.ts';

// PostgreSQL ends one transaction of a deadlock (40P01); the pool's transactions run it again.
describe.skipIf(!realDatabaseUrl)('a transaction PostgreSQL picks as a deadlock victim', () => {
  it('runs again and commits, and so does the other', async () => {
    const scratch = await createScratchDatabase();
    const database = await openPostgres(scratch.url, 4);
    try {
      let arrived = 0;
      let bothHoldOne!: () => void;
      const barrier = new Promise<void>((resolve) => (bothHoldOne = resolve));
      const runs = { first: 0, second: 0 };
      const crossing = (name: 'first' | 'second', a: number, b: number) =>
        database.transaction(async (tx) => {
          runs[name]++;
          await tx.execute(sql`select pg_advisory_xact_lock(${a})`);
          if (++arrived === 2) bothHoldOne();
          await barrier;
          await tx.execute(sql`select pg_advisory_xact_lock(${b})`);
          return name;
        });
      expect(await Promise.all([crossing('first', 1, 2), crossing('second', 2, 1)])).toEqual(['first', 'second']);
      // One of them was the victim and ran twice.
      expect(runs.first + runs.second).toBe(3);
    } finally {
      await database.close();
      await scratch.drop();
    }
  }, 60_000);
});
