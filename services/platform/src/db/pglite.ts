import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { drizzle } from 'drizzle-orm/pglite';
import type { Database, Executor, RawSession } from './database.ts';

/** PostgreSQL compiled to WASM, in this process: files under `dir`, or memory when `dir` is null. */
export async function openPglite(dir: string | null): Promise<Database> {
  if (dir) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const client = await PGlite.create({ ...(dir ? { dataDir: dir } : {}), extensions: { pg_trgm, unaccent } });
  if (dir) ownerOnly(dir);
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
      if (client.closed) return;
      await client.close();
      // Relation files made while serving got PGlite's modes too (a folder removed meanwhile has none left).
      if (dir && fs.existsSync(dir)) ownerOnly(dir);
    },
  };
}

/**
 * PGlite creates its files 0666 and folders 0777 less the umask (Emscripten's defaults), whatever
 * PostgreSQL asks for: the database is this process's alone, 0600 files in 0700 folders.
 */
function ownerOnly(dir: string): void {
  fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) ownerOnly(file);
    else if (entry.isFile()) fs.chmodSync(file, 0o600);
  }
}
