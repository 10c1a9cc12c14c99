import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { createS3Storage } from '@cliffhanger/platform';

/**
 * Parquet through DuckDB itself (`COPY ... TO ... (FORMAT parquet, PARTITION_BY ...)`): the engine
 * analysts read the lake with writes it, so types, compression and Hive partitioning are what
 * DuckDB (and Spark, Athena, pandas) expect, and there is one native dependency, not a second
 * Parquet writer to keep in step with the reader.
 */

/** One event as a lake row: the columns of every file, besides the partitions (`type`, `date`). */
export interface LakeRow {
  id: string;
  type: string;
  /** ISO 8601, UTC. */
  time: string;
  userId: string | null;
  referrerToken: string | null;
  fbclid: string | null;
  ttclid: string | null;
  /** The event's data as JSON text. */
  data: string;
}

/** A file written: where, its key in the lake (`type=<t>/date=<yyyy-mm-dd>/<name>.parquet`), its partition and events. */
export interface LakeFile {
  /** The local file, relative to the batch's directory. */
  file: string;
  key: string;
  type: string;
  day: string;
  events: number;
}

const STAGE = `create or replace temp table stage (
  id varchar, type varchar, time varchar, user_id varchar, referrer_token varchar, fbclid varchar, ttclid varchar, data varchar)`;

/** An in-memory DuckDB that turns batches of rows into one Parquet file per type and day. */
export async function openParquetWriter(options: { threads?: number } = {}) {
  const instance = await DuckDBInstance.create(':memory:', { threads: String(options.threads ?? 1) });
  const connection = await instance.connect();
  await connection.run(`set TimeZone = 'UTC'`);

  return {
    /**
     * Writes `rows` into `dir`, empty, as a Parquet file per type and UTC day (Hive folders); answers
     * each file and the key it takes in the lake, named `name`.
     */
    async write(rows: readonly LakeRow[], dir: string, name: string): Promise<LakeFile[]> {
      if (!/^[\w-]+$/.test(name)) throw new Error(`invalid lake file name: ${name}`);
      await stage(connection, rows);
      await connection.run(`copy (
          select id, time::timestamptz as time, user_id, referrer_token, fbclid, ttclid, data::json as data,
                 type, strftime(time::timestamptz, '%Y-%m-%d') as date
            from stage order by type, time)
        to '${dir.replaceAll("'", "''")}' (format parquet, compression zstd, partition_by (type, date), write_partition_columns false)`);
      const counts = await connection.runAndReadAll(`select type, strftime(time::timestamptz, '%Y-%m-%d') as day, count(*)::integer as events from stage group by all`);
      await connection.run('drop table stage');
      return counts.getRowObjectsJS().map((row) => {
        const type = String(row.type);
        const day = String(row.day);
        return { file: findFile(dir, type, day), key: `type=${type}/date=${day}/${name}.parquet`, type, day, events: Number(row.events) };
      });
    },
    close(): void {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function stage(connection: DuckDBConnection, rows: readonly LakeRow[]): Promise<void> {
  await connection.run(STAGE);
  const appender = await connection.createAppender('stage');
  const text = (value: string | null) => (value === null ? appender.appendNull() : appender.appendVarchar(value));
  for (const row of rows) {
    text(row.id);
    text(row.type);
    text(row.time);
    text(row.userId);
    text(row.referrerToken);
    text(row.fbclid);
    text(row.ttclid);
    text(row.data);
    appender.endRow();
  }
  appender.closeSync();
}

/**
 * The file DuckDB wrote for a partition, relative to `dir` (a fresh directory per batch: one file in
 * each partition's folder, whatever DuckDB numbered it or however it escaped the value).
 */
function findFile(dir: string, type: string, day: string): string {
  const typeDir = fs.readdirSync(dir).find((entry) => entry === `type=${type}` || decodeURIComponent(entry) === `type=${type}`);
  const dayDir = typeDir && path.join(typeDir, `date=${day}`);
  const file = dayDir && fs.readdirSync(path.join(dir, dayDir)).find((entry) => entry.endsWith('.parquet'));
  if (!dayDir || !file) throw new Error(`lake: no file written for ${type} on ${day}`);
  return path.join(dayDir, file);
}

/** A fresh temporary directory for one batch's files. */
export const temporaryLakeDir = (): Promise<string> => fs.promises.mkdtemp(path.join(os.tmpdir(), 'cliffhanger-lake-'));

/** Where a lake in a bucket is read from, and with what. */
export interface LakeS3 {
  keyId?: string;
  secret?: string;
  region?: string;
  /** An S3-compatible server (MinIO, Ceph, R2...): addressed by path, over http when it says so. */
  endpoint?: string;
  /** Where a bucket's lake is copied to when DuckDB cannot read S3 itself (default: under the system's temp folder). */
  mirrorDir?: string;
}

/**
 * What `npm run lake` and the tests query: every event of the lake as the view `events`, from a
 * folder, or from `s3://bucket/prefix`. DuckDB reads a bucket with its httpfs extension, which it
 * downloads on first use; where it cannot (no way to extensions.duckdb.org: an air-gapped analyst,
 * this project's CI), the lake's files are copied down first, only those not yet there (a lake file
 * never changes once written: its name holds the events it covers), and read from the copy. `via`
 * says which.
 */
export async function openLakeReader(location: string, s3: LakeS3 = {}) {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`set TimeZone = 'UTC'`);
  let source = location;
  let via: 'folder' | 'httpfs' | 'mirror' = 'folder';
  if (location.startsWith('s3://')) {
    if (await loadHttpfs(connection)) {
      await connection.run(s3Secret(s3));
      via = 'httpfs';
    } else {
      source = await mirrorLake(location, s3);
      via = 'mirror';
    }
  }
  const glob = `${source.replace(/\/+$/, '')}/**/*.parquet`.replaceAll("'", "''");
  const empty = via !== 'httpfs' && !hasParquet(source);
  // An empty lake still has the view, with no rows: a query of a fresh install answers nothing, not an error.
  await connection.run(
    empty
      ? `create view events as select null::varchar as id, null::timestamptz as time, null::varchar as user_id, null::varchar as referrer_token,
           null::varchar as fbclid, null::varchar as ttclid, null::json as data, null::varchar as type, null::date as date where false`
      : `create view events as select * from read_parquet('${glob}', hive_partitioning = true, hive_types = {'date': date}, union_by_name = true)`,
  );
  return {
    via,
    async query(text: string) {
      const result = await connection.runAndReadAll(text);
      return { columns: result.columnNames(), rows: result.getRowObjectsJson() };
    },
    close(): void {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** Whether DuckDB's httpfs is there or could be fetched (it is no part of the npm package). */
async function loadHttpfs(connection: DuckDBConnection): Promise<boolean> {
  try {
    await connection.run('install httpfs');
    await connection.run('load httpfs');
    return true;
  } catch {
    return false;
  }
}

/** DuckDB's S3 secret for `s3`: an endpoint of its own is addressed by path, with TLS only when its URL has it. */
function s3Secret(s3: LakeS3): string {
  const quoted = (value: string) => `'${value.replaceAll("'", "''")}'`;
  const fields: [string, string][] = [
    ['key_id', s3.keyId],
    ['secret', s3.secret],
    ['region', s3.region],
    ['endpoint', s3.endpoint?.replace(/^https?:\/\//, '').replace(/\/+$/, '')],
  ].filter((field): field is [string, string] => Boolean(field[1])).map(([key, value]) => [key, quoted(value)]);
  if (s3.endpoint) fields.push(['url_style', "'path'"], ['use_ssl', String(!s3.endpoint.startsWith('http://'))]);
  return `create secret lake (type s3${fields.map(([key, value]) => `, ${key} ${value}`).join('')})`;
}

/**
 * Copies the lake's Parquet files under `s3://bucket/prefix` to a local folder (those missing or of
 * another size), removes local ones the bucket no longer has (retention), and answers the folder.
 */
async function mirrorLake(location: string, s3: LakeS3): Promise<string> {
  const url = new URL(location);
  const bucket = url.hostname;
  const prefix = url.pathname.replace(/^\/+|\/+$/g, '');
  if (!bucket || !prefix) throw new Error(`lake: ${location} names no bucket and folder (s3://bucket/lake)`);
  const storage = createS3Storage({
    bucket,
    region: s3.region ?? 'us-east-1',
    ...(s3.endpoint && { endpoint: s3.endpoint }),
    ...(s3.keyId && s3.secret && { credentials: { accessKeyId: s3.keyId, secretAccessKey: s3.secret } }),
  });
  const dir = path.join(s3.mirrorDir ?? path.join(os.tmpdir(), 'cliffhanger-lake-mirror'), bucket, prefix);
  const objects = (await storage.list(prefix)).filter((object) => object.key.endsWith('.parquet'));
  const wanted = new Set<string>();
  for (const { key, size } of objects) {
    const relative = key.slice(prefix.length + 1);
    // A key is any text in S3: one that would climb out of the copy's folder is not the lake's.
    if (relative.split('/').some((part) => part === '' || part === '.' || part === '..')) continue;
    const file = path.join(dir, relative);
    wanted.add(file);
    if ((await fs.promises.stat(file).catch(() => null))?.size === size) continue;
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.part`;
    await pipeline(storage.read(key), fs.createWriteStream(partial));
    await fs.promises.rename(partial, file);
  }
  for (const entry of await fs.promises.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && !wanted.has(file)) await fs.promises.rm(file, { force: true });
  }
  return dir;
}

function hasParquet(dir: string): boolean {
  try {
    return fs.readdirSync(dir, { recursive: true }).some((entry) => String(entry).endsWith('.parquet'));
  } catch {
    return false;
  }
}
