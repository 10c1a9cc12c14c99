import path from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from './database.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';

export { queryRows, type Database, type Executor, type RawSession } from './database.ts';
export { migrate } from './migrate.ts';
export { openPglite, openPostgres };

/** PostgreSQL when DATABASE_URL is set, otherwise PGlite under DATA_DIR. */
export function openDatabase(config: Pick<Config, 'DATABASE_URL' | 'dataDir'>): Promise<Database> {
  return config.DATABASE_URL ? openPostgres(config.DATABASE_URL) : openPglite(path.join(config.dataDir, 'pglite'));
}
