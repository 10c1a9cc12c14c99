// `npm run lake -- "select ..." [--json]`: runs SQL with DuckDB over the lake (docs/analytics.md
// "The lake"), every event's Parquet files as the view `events` (columns id, time, user_id,
// referrer_token, fbclid, ttclid, data as JSON, type, date). Reads DATA_DIR/lake, or LAKE_URL
// (`s3://<bucket>/lake`, with S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION and S3_ENDPOINT:
// DuckDB's httpfs extension, which it downloads on first use, or where it cannot, a local copy of
// the bucket's files brought up to date first). Prints a table, or JSON lines.
import { parseArgs } from 'node:util';
import { lakeDirOf, loadConfig } from '@cliffhanger/platform';
import { openLakeReader } from '@cliffhanger/analytics';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
const query = positionals.join(' ').trim();
if (!query) {
  process.stderr.write('usage: npm run lake -- "select type, date, count(*) from events group by all order by all" [--json]\n');
  process.exit(2);
}

const config = loadConfig();
const location = process.env.LAKE_URL ?? lakeDirOf(config);
const reader = await openLakeReader(location, {
  keyId: config.S3_ACCESS_KEY_ID,
  secret: config.S3_SECRET_ACCESS_KEY,
  region: config.S3_REGION,
  endpoint: config.S3_ENDPOINT,
});
try {
  const { columns, rows } = await reader.query(query);
  if (values.json) for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
  else {
    const cells = rows.map((row) => columns.map((column) => (row[column] === null || row[column] === undefined ? '' : typeof row[column] === 'object' ? JSON.stringify(row[column]) : String(row[column]))));
    const widths = columns.map((column, i) => Math.min(60, Math.max(column.length, ...cells.map((cell) => cell[i]!.length))));
    const line = (values: string[]) => values.map((value, i) => value.slice(0, widths[i]).padEnd(widths[i]!)).join('  ').trimEnd();
    process.stdout.write(`${line(columns)}\n${line(widths.map((width) => '-'.repeat(width)))}\n`);
    for (const cell of cells) process.stdout.write(`${line(cell)}\n`);
    process.stdout.write(`(${rows.length} row${rows.length === 1 ? '' : 's'})\n`);
  }
} finally {
  reader.close();
}
