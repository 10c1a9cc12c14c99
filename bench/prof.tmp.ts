import pg from 'pg';
import { registry } from '../gateway/src/registry.ts';
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
const scratch = `bench_prof_${process.pid}`;
const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' }); await c.connect(); await c.query(`create database ${scratch}`); await c.end();
const apart = { TARGET: 'gateway', INTERNAL_TOKEN: 'bench-internal-token-0123', ADMIN_TOKEN: 'bench-admin-token-0123456789', MEDIA_SECRET: 'bench-media-secret-0123456789abcdef',
  ...Object.fromEntries(registry.modules.map((m) => [`${m.name.toUpperCase()}_SERVICE_URL`, 'http://127.0.0.1:9'])) };
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/prof', '--import', 'tsx', 'bench/servers/gateway.ts'], { env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', SMTP_URL: 'smtp://127.0.0.1:2525', PUBLIC_URL: 'http://127.0.0.1:8080', PAYMENT_PROVIDER: 'sandbox', RATE_LIMIT_PIXEL_PER_MINUTE: '1000000', ...apart, DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${scratch}` }, stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise<string>((resolve) => child.stdout!.on('data', (b: Buffer) => { const m = /listening (http:\/\/\S+)/.exec(b.toString()); if (m) resolve(m[1]!); }));
const gw = { stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
const url = base + '/api/statics.png?event=page_view&path=%2Fvideo%2Fv1&videoId=v1&fbclid=fb-bench&lang=en';
await autocannon({ url, connections: 10, duration: 2, headers: { 'user-agent': 'Mozilla/5.0 (bench)' } });
const r = await autocannon({ url, connections: 10, duration: 6, headers: { 'user-agent': 'Mozilla/5.0 (bench)' } });
console.log('rps', r.requests.average);
await gw.stop();
const d = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' }); await d.connect(); await d.query(`drop database ${scratch} with (force)`); await d.end();
