// GET /api/statics.png through the gateway process as the distributed deployment runs it
// (TARGET=gateway on PostgreSQL: the pixel edge, its bounded buffer and the batches its writer
// thread stores in a scratch database on BENCH_DATABASE_URL's server, dropped at the end) against
// bare node:http answering the same PNG, in this run. The services it would forward other calls to
// are never asked, and the analytics service, which turns stored batches into events, runs
// elsewhere. Every hit is stored: a second line says how many the gateway kept and dropped, and how
// many the database holds after it stopped.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry } from '../gateway/src/registry.ts';
import pg from 'pg';
import { adminStatement, interleaved, report, startServer } from './lib.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const QUERY = '/api/statics.png?event=page_view&path=%2Fvideo%2Fv1&videoId=v1&fbclid=fb-bench&lang=en';

if (process.env.BENCH_ROLE === 'bare') {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length), 'cache-control': 'no-store' });
    res.end(PNG);
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  const script = path.relative(path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url));
  const apart = {
    TARGET: 'gateway',
    INTERNAL_TOKEN: 'bench-internal-token-0123',
    METRICS_TOKEN: 'bench-metrics-token-0123456789',
    MEDIA_SECRET: 'bench-media-secret-0123456789abcdef',
    ...Object.fromEntries(registry.modules.map((module) => [`${module.name.toUpperCase()}_SERVICE_URL`, 'http://127.0.0.1:9'])),
  };
  const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const scratch = `bench_pixel_${process.pid}`;
  const admin = (statement: string) => adminStatement(adminUrl, statement);
  try {
    await admin(`create database ${scratch}`);
  } catch (error) {
    console.error(`statics.png: needs PostgreSQL at BENCH_DATABASE_URL (${adminUrl}): ${(error as Error).message}`);
    process.exit(1);
  }
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${scratch}`;
  const [gateway, bare] = await Promise.all([
    startServer('servers/gateway.ts', { ...apart, DATABASE_URL: databaseUrl.toString() }),
    startServer(script, { BENCH_ROLE: 'bare' }),
  ]);
  const headers = { 'user-agent': 'Mozilla/5.0 (bench)' };
  const [gatewayRps, bareRps] = await interleaved([
    { url: gateway.url + QUERY, headers },
    { url: bare.url + QUERY, headers },
  ]);
  // What became of the hits, as the gateway counts them (pixel_hits_total), once it wrote the rest at stop.
  const outcomes = async () => {
    const metrics = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${apart.METRICS_TOKEN}` } }).then((r) => r.text());
    return Object.fromEntries([...metrics.matchAll(/^pixel_hits_total\{outcome="(\w+)"[^}]*\} (\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
  };
  const answered = await outcomes();
  await Promise.all([gateway.stop(), bare.stop()]);
  report('statics.png', ['gateway', gatewayRps!], ['bare node:http', bareRps!], 0.7);

  const database = new pg.Client({ connectionString: databaseUrl.toString() });
  await database.connect();
  // A stored batch holds its hits apart by the record separator (pixel-hits.ts).
  const { rows } = await database.query(
    `select coalesce(sum(length(body) - length(replace(body, chr(30), '')) + 1), 0)::int as hits from platform.edge_batches where edge = 'statics.png'`,
  );
  await database.end();
  await admin(`drop database if exists ${scratch} with (force)`);
  const count = (value: number | undefined) => (value ?? 0).toLocaleString('en-US');
  console.log(
    `statics.png: ${count(answered.buffered)} hits kept, ${count(answered.dropped)} dropped (buffer full) while serving; ${count(rows[0].hits)} in the database after the gateway stopped`,
  );
}
