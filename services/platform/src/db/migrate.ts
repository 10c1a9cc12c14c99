import fs from 'node:fs';
import path from 'node:path';
import type { Database } from './database.ts';

// One constant lock key: concurrent starts queue behind it instead of applying a migration twice.
const MIGRATION_LOCK = 72_617_001;

/**
 * Applies `dir`'s versioned SQL files (`0001_name.sql`, ...) that `owner` has not applied yet,
 * each in order, all in one transaction under an advisory lock.
 */
export async function migrate(database: Database, owner: string, dir: string): Promise<string[]> {
  const files = fs
    .readdirSync(dir)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort();
  return database.rawTransaction(async (session) => {
    await session.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await session.exec(`
      create schema if not exists platform;
      create table if not exists platform.migrations (
        owner text not null,
        version text not null,
        applied_at timestamptz not null default now(),
        primary key (owner, version)
      );`);
    const done = new Set(
      (await session.query<{ version: string }>('select version from platform.migrations where owner = $1', [owner])).map(
        (row) => row.version,
      ),
    );
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await session.exec(fs.readFileSync(path.join(dir, file), 'utf8'));
      await session.query('insert into platform.migrations (owner, version) values ($1, $2)', [owner, file]);
      applied.push(file);
    }
    return applied;
  });
}
