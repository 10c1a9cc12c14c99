// The lake's writing (services/analytics/src/lake-parquet.ts, as the sink runs it: DuckDB on one
// thread, batches of LAKE_FILE_EVENTS events, a Parquet file per type and day) of LAKE_BENCH_EVENTS
// (1,000,000) statics.hit events over three days, against DuckDB reading every one of them back
// from the files as an analyst's query does, in this run. A second line says what was read back:
// every event exactly once, or the bench fails.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '@cliffhanger/platform/testing';
import { openLakeReader, openParquetWriter, temporaryLakeDir, type LakeRow } from '../services/analytics/src/lake-parquet.ts';

const EVENTS = Number(process.env.LAKE_BENCH_EVENTS ?? 1_000_000);
const BATCH = 100_000;
const DAY = 86_400_000;
const perSecond = (events: number, ms: number) => `${Math.round((events / ms) * 1000).toLocaleString('en-US')} events/s`;

function hits(from: number, count: number): LakeRow[] {
  const start = Date.now() - 3 * DAY;
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      id: randomUUID(),
      type: 'statics.hit',
      time: new Date(start + Math.floor((i / EVENTS) * 3 * DAY)).toISOString(),
      userId: `user-${i % 50_000}`,
      referrerToken: null,
      fbclid: i % 4 === 0 ? `fb-${i % 1_000}` : null,
      ttclid: null,
      data: JSON.stringify({
        event: i % 10 === 0 ? 'landing' : 'page_view',
        videoId: `v${i % 300}`,
        value: { amount: 0, currency: 'USD' },
        path: `/video/v${i % 300}`,
        params: { lang: 'en', utm_campaign: `c${i % 20}` },
        userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
        ipHash: `h${(i % 40_000).toString(36).padStart(21, '0')}`,
      }),
    };
  });
}

const lake = tempDir('bench-lake-');
const writer = await openParquetWriter();
let writeMs = 0;
for (let from = 0; from < EVENTS; from += BATCH) {
  const rows = hits(from, Math.min(BATCH, EVENTS - from));
  const started = performance.now();
  // As the sink does: the batch's files in a directory of their own, then moved into the lake.
  const dir = await temporaryLakeDir();
  for (const file of await writer.write(rows, dir, `${String(from + 1).padStart(12, '0')}-${String(from + rows.length).padStart(12, '0')}`)) {
    fs.mkdirSync(path.dirname(path.join(lake, file.key)), { recursive: true });
    fs.renameSync(path.join(dir, file.file), path.join(lake, file.key));
  }
  writeMs += performance.now() - started;
  fs.rmSync(dir, { recursive: true, force: true });
}
writer.close();

const reader = await openLakeReader(lake);
const started = performance.now();
const { rows } = await reader.query(`select count(*)::bigint as n, count(distinct id)::bigint as ids, count(distinct user_id)::bigint as users,
  count(distinct (data->>'path'))::bigint as paths, min(date)::varchar as first, max(date)::varchar as last from events`);
const readMs = performance.now() - started;
reader.close();
const bytes = fs.readdirSync(lake, { recursive: true }).reduce((sum, entry) => {
  const stat = fs.statSync(path.join(lake, String(entry)));
  return stat.isFile() ? sum + stat.size : sum;
}, 0);
fs.rmSync(lake, { recursive: true, force: true });

const ratio = readMs / writeMs;
console.log(`lake: write Parquet ${perSecond(EVENTS, writeMs)} / DuckDB read back ${perSecond(EVENTS, readMs)} = ${ratio.toFixed(2)} (for reference)`);
const read = rows[0]!;
console.log(`lake: ${EVENTS.toLocaleString('en-US')} events, ${(bytes / 1e6).toFixed(1)} MB of Parquet (${(bytes / EVENTS).toFixed(0)} bytes an event), read back ${read.n} rows with ${read.ids} distinct ids, ${read.first} to ${read.last}`);
if (Number(read.n) !== EVENTS || Number(read.ids) !== EVENTS) {
  console.error('lake: the files do not hold every event exactly once');
  process.exitCode = 1;
}
