import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openPostgres, queryRows, type Database } from '../src/index.ts';
import { createScratchDatabase, openTestDatabase, realDatabaseUrl, tempDir } from '../src/testing/index.ts';

function migrationsDir(files: Record<string, string>): string {
  const dir = tempDir('migrations-');
  for (const [name, body] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), body);
  return dir;
}

describe('migrations', () => {
  let database: Database;
  beforeEach(async () => {
    database = await openTestDatabase();
  });
  afterEach(() => database.close());

  it('applies versioned files in order, once', async () => {
    const dir = migrationsDir({
      '0002_add_column.sql': 'alter table demo.things add column label text;',
      '0001_create.sql': 'create schema demo; create table demo.things (id int primary key);',
      'README.md': 'not a migration',
    });
    expect(await migrate(database, 'demo', dir)).toEqual(['0001_create.sql', '0002_add_column.sql']);
    expect(await migrate(database, 'demo', dir)).toEqual([]);
    await database.db.execute(sql`insert into demo.things (id, label) values (1, 'x')`);
  });

  it('rolls back a failing migration whole', async () => {
    const dir = migrationsDir({
      '0001_create.sql': 'create schema demo; create table demo.things (id int primary key);',
      '0002_broken.sql': 'alter table demo.things add column ok text; select * from missing_table;',
    });
    await expect(migrate(database, 'demo', dir)).rejects.toThrow();
    const tables = await queryRows(database.db, sql`select 1 from information_schema.tables where table_schema = 'demo'`);
    expect(tables).toEqual([]);
  });
});

describe.skipIf(!realDatabaseUrl)('migrations on PostgreSQL from several processes', () => {
  it('applies each file once when many processes start at the same moment', async () => {
    const scratch = await createScratchDatabase();
    const dir = migrationsDir({ '0001_create.sql': 'create schema demo; create table demo.things (id int primary key);' });
    const processes = await Promise.all(Array.from({ length: 5 }, () => openPostgres(scratch.url, 1)));
    try {
      const applied = await Promise.all(processes.map((process) => migrate(process, 'demo', dir)));
      expect(applied.flat()).toEqual(['0001_create.sql']);
    } finally {
      await Promise.all(processes.map((process) => process.close()));
      await scratch.drop();
    }
  });
});
