import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { drizzle } from 'drizzle-orm/pglite';
import type { Database, Executor, RawSession } from './database.ts';

/** PostgreSQL compiled to WASM, in this process: files under `dir`, or memory when `dir` is null. */
export async function openPglite(dir: string | null): Promise<Database> {
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const client = await PGlite.create({ ...(dir ? { dataDir: dir } : {}), extensions: { pg_trgm, unaccent } });
  const db = drizzle({ client }) as unknown as Executor;
  return {
    kind: 'pglite',
    db,
    transaction: (fn) => db.transaction((tx) => fn(tx as unknown as Executor)),
    rawTransaction: (fn) =>
      client.transaction((tx) => {
        const session: RawSession = {
          query: async (text, params) => (await tx.query(text, params)).rows as never,
          exec: async (script) => void (await tx.exec(script)),
        };
        return fn(session);
      }),
    async listen(channel, onNotify) {
      const unlisten = await client.listen(channel, onNotify);
      return async () => unlisten();
    },
    async ping() {
      await client.query('select 1');
    },
    async close() {
      if (!client.closed) await client.close();
    },
  };
}
