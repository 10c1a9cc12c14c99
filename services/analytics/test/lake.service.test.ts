import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  appendEvents,
  createDiskStorage,
  createLakeStorage,
  createS3Storage,
  createPostgresBus,
  noAttribution,
  queryRows,
  type BatchedEvent,
  type Database,
  type EventBus,
} from '@cliffhanger/platform';
import { eventually, openMigratedDatabase, silentLogger, startObjectStore, tempDir, testConfig } from '@cliffhanger/platform/testing';
import { analyticsModule } from '../src/index.ts';
import { createLake, flushLake, type Lake } from '../src/lake.ts';
import { openLakeReader, openParquetWriter } from '../src/lake-parquet.ts';

// The lake on a real database and bus (PGlite, or PostgreSQL in npm test's second pass): events
// written to the outbox come back from the Parquet files, read by DuckDB, each exactly once.
let database: Database;
let bus: EventBus;
let lake: Lake;
const lakeDir = tempDir('cliffhanger-lake-test-');
beforeAll(async () => {
  database = await openMigratedDatabase(analyticsModule);
  bus = createPostgresBus(database, silentLogger, { pollMs: 50 });
  lake = createLake({ config: testConfig(), database, bus, logger: silentLogger }, createDiskStorage(lakeDir), { fileEvents: 70, flushMs: 60_000, retentionDays: 400 });
  await bus.start();
});
afterAll(async () => {
  await bus?.stop();
  await database?.close();
  fs.rmSync(lakeDir, { recursive: true, force: true });
});

const DAY = 86_400_000;
const context = { requestId: 'lake-test', userId: null, attribution: { ...noAttribution, fbclid: 'fb-lake' } };

/** Writes `count` events, pixel hits and payments, spread over three days; answers their ids in order. */
async function writeEvents(count: number, run: string): Promise<void> {
  const events: BatchedEvent[] = [];
  for (let i = 0; i < count; i++) {
    const occurredAt = new Date(Date.now() - (i % 3) * DAY);
    events.push(
      i % 5 === 0
        ? { context, type: 'payment.succeeded', userId: `u${i}`, occurredAt, data: { orderId: `${run}-${i}`, paymentId: `pay-${run}-${i}`, amount: { amount: 499, currency: 'USD' } } }
        : { context, type: 'statics.hit', userId: `u${i}`, occurredAt, data: { event: 'page_view', value: { amount: 0, currency: 'USD' }, path: `/${run}/${i}`, params: {}, ipHash: 'h' } },
    );
  }
  await database.transaction((tx) => appendEvents(tx, events));
  bus.nudge();
}

const staged = async () => (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from analytics.lake_staged`))[0]!.n;
const processed = async () =>
  (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from platform.processed_events where consumer = 'analytics.lake'`))[0]?.n ?? 0;

async function readLake(query: string) {
  const reader = await openLakeReader(lakeDir);
  try {
    return (await reader.query(query)).rows;
  } finally {
    reader.close();
  }
}

describe('the lake', () => {
  it('writes every event to a Parquet file of its type and day, and DuckDB reads each back once', async () => {
    await writeEvents(200, 'a');
    await eventually(async () => (await staged()) === 200, 20_000, 'every event staged');
    const files = await lake.flush();
    // 200 events in batches of 70: three batches, each split by type and day.
    expect(new Set(files.map((file) => file.key.split('/').pop())).size).toBe(3);
    for (const file of files) expect(file.key).toMatch(/^type=(statics\.hit|payment\.succeeded)\/date=\d{4}-\d{2}-\d{2}\/\d{12}-\d{12}\.parquet$/);
    expect(await staged()).toBe(0);

    const rows = await readLake(`select id, type, date::varchar as date, time, fbclid, (data->>'path') as path from events where (data->>'path') like '/a/%' or (data->>'orderId') like 'a-%'`);
    expect(rows).toHaveLength(200);
    expect(new Set(rows.map((row) => row.id)).size).toBe(200);
    for (const row of rows) {
      expect(row.fbclid).toBe('fb-lake');
      expect(String(row.time).slice(0, 10)).toBe(row.date);
    }
    const byType = await readLake(`select type, count(*)::int as n from events group by type order by type`);
    expect(byType).toEqual([
      { type: 'payment.succeeded', n: 40 },
      { type: 'statics.hit', n: 160 },
    ]);
  });

  it('writes a batch a crash left claimed again under the same names: no event twice, none lost', async () => {
    const before = (await readLake(`select count(*)::int as n from events`))[0]!.n as number;
    const marked = await processed();
    await writeEvents(50, 'b');
    await eventually(async () => (await processed()) === marked + 50, 20_000, 'every event staged');
    // A process claims the batch and writes its files, then dies before recording them: claimed, files there.
    const [batch] = await queryRows<{ id: string }>(database.db, sql`insert into analytics.lake_batches (first_id, last_id) values (0, 0) returning id::text`);
    const [range] = await queryRows<{ first: string; last: string }>(
      database.db,
      sql`with claimed as (update analytics.lake_staged set batch = ${batch!.id} where batch is null returning id) select min(id)::text as first, max(id)::text as last from claimed`,
    );
    await database.db.execute(sql`update analytics.lake_batches set first_id = ${range!.first}, last_id = ${range!.last} where id = ${batch!.id}`);
    const rows = await queryRows<{ id: string; type: string; ms: string; data: string }>(
      database.db,
      sql`select event_id::text as id, type, (extract(epoch from occurred_at) * 1000)::bigint::text as ms, data::text as data from analytics.lake_staged where batch = ${batch!.id}`,
    );
    const name = `${range!.first.padStart(12, '0')}-${range!.last.padStart(12, '0')}`;
    const writer = await openParquetWriter();
    const scratch = tempDir('cliffhanger-lake-crash-');
    const lakeRows = rows.map((row) => ({ id: row.id, type: row.type, time: new Date(Number(row.ms)).toISOString(), userId: null, referrerToken: null, fbclid: null, ttclid: null, data: row.data }));
    for (const file of await writer.write(lakeRows, scratch, name)) {
      fs.mkdirSync(path.dirname(path.join(lakeDir, file.key)), { recursive: true });
      fs.copyFileSync(path.join(scratch, file.file), path.join(lakeDir, file.key));
    }
    writer.close();
    expect((await readLake(`select count(*)::int as n from events`))[0]!.n).toBe(before + 50);

    // Within its lease another process leaves it alone; after it, the batch is written again.
    expect(await lake.flush()).toEqual([]);
    const files = await lake.flush(0);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(file.key.endsWith(`/${name}.parquet`)).toBe(true);
    const all = await readLake(`select id from events`);
    expect(all).toHaveLength(before + 50);
    expect(new Set(all.map((row) => row.id)).size).toBe(before + 50);
    expect(await staged()).toBe(0);
  });

  it('deletes the files of days past LAKE_RETENTION_DAYS, whatever the outbox keeps', async () => {
    const old = new Date(Date.now() - 401 * DAY);
    await database.transaction((tx) =>
      appendEvents(tx, [{ context, type: 'statics.hit', userId: null, occurredAt: old, data: { event: 'old', value: { amount: 0, currency: 'USD' }, path: '/old', params: {}, ipHash: 'h' } }]),
    );
    bus.nudge();
    await eventually(async () => (await staged()) === 1, 20_000, 'the old event staged');
    const [file] = await lake.flush();
    expect(file!.day).toBe(old.toISOString().slice(0, 10));
    expect(fs.existsSync(path.join(lakeDir, file!.key))).toBe(true);
    expect(await lake.prune()).toBe(1);
    expect(fs.existsSync(path.join(lakeDir, file!.key))).toBe(false);
    expect(await readLake(`select * from events where (data->>'event') = 'old'`)).toEqual([]);
  });

  it('answers the examples of docs/analytics.md', async () => {
    const reader = await openLakeReader(lakeDir);
    try {
      for (const query of exampleQueries()) await expect(reader.query(query)).resolves.toBeDefined();
    } finally {
      reader.close();
    }
  });
});

describe('the lake in object storage', () => {
  it('writes each file to the bucket under lake/ (S3_BUCKET set), and DuckDB reads every event back once from those objects', async () => {
    const store = await startObjectStore('cliffhanger-lake');
    onTestFinished(() => store.close());
    const storage = createLakeStorage(testConfig(store.env));
    expect(storage.kind).toBe('s3');
    await writeEvents(120, 's3');
    await eventually(async () => (await staged()) === 120, 20_000, 'every event staged');
    const files = await flushLake(database, storage, 1_000);
    expect(files.reduce((sum, file) => sum + file.events, 0)).toBe(120);

    const bucket = createS3Storage({ bucket: store.bucket, endpoint: store.endpoint, region: 'us-east-1', credentials: store.credentials });
    for (const file of files) expect(await bucket.stat(`lake/${file.key}`)).toMatchObject({ size: expect.any(Number) });

    // As `npm run lake` reads it with LAKE_URL: DuckDB's httpfs where it can be had, else (here: no
    // way to extensions.duckdb.org) a copy of the bucket's files made first.
    const s3 = { keyId: store.credentials.accessKeyId, secret: store.credentials.secretAccessKey, region: 'us-east-1', endpoint: store.endpoint, mirrorDir: tempDir('cliffhanger-lake-mirror-') };
    const countOf = async () => {
      const reader = await openLakeReader(`s3://${store.bucket}/lake`, s3);
      try {
        expect(['httpfs', 'mirror']).toContain(reader.via);
        const { rows } = await reader.query(`select count(*)::int as n, count(distinct id)::int as ids from events where (data->>'path') like '/s3/%' or (data->>'orderId') like 's3-%'`);
        return rows[0];
      } finally {
        reader.close();
      }
    };
    expect(await countOf()).toEqual({ n: 120, ids: 120 });

    // Files written since are read the next time; a file the bucket no longer has is not.
    await writeEvents(30, 's3');
    await eventually(async () => (await staged()) === 30, 20_000, 'the next events staged');
    const more = await flushLake(database, storage, 1_000);
    expect(await countOf()).toEqual({ n: 150, ids: 150 });
    await storage.remove(more[0]!.key);
    expect((await countOf())!.n).toBe(150 - more[0]!.events);
  });
});

/** The SQL blocks of docs/analytics.md's lake section, as an analyst would paste them. */
function exampleQueries(): string[] {
  const doc = fs.readFileSync(new URL('../../../docs/analytics.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## The lake'));
  const queries = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1]!);
  expect(queries.length).toBeGreaterThanOrEqual(3);
  return queries;
}
