import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeTarget, createPlatform, loadConfig, startPlatform, stopPlatform, type Database } from '@cliffhanger/platform';
import { tempDir } from '@cliffhanger/platform/testing';
import type { LocalCatalogClient } from '@cliffhanger/catalog';
import { registry } from '../gateway/src/registry.ts';
import { adminStatement, startServer } from './lib.ts';

// Watching viewers held: simulated viewers each save their position every 5 s as the storefront
// does (useWatchHistory), now and then open another episode (its series page, the last save of the
// one they leave marked final) and ask who they are; their number doubles each stage until the p99
// passes 250 ms or any request fails, and the largest number held is the figure. Beside it, in the
// same run on the same database: bare single-row history upserts per second from 10 connections.
// Run on the embedded defaults (PGlite), then on PostgreSQL + Redis when BENCH_DATABASE_URL and
// BENCH_REDIS_URL (or TEST_DATABASE_URL and TEST_REDIS_URL) name them: in a scratch database on that
// server (an admin connection; dropped at the end) and a Redis prefix of its own.
// A stage's new viewers join spread over JOIN_SECONDS (30: at 3,200 viewers, 53 a second), as an
// audience grows; the stage is measured from two beats after the last has joined.
// Bounds (env): VIEWERS_START (400), VIEWERS_MAX (20,000), JOIN_SECONDS (30), STAGE_SECONDS (20),
// BENCH_MAX_SECONDS (480 per mode).
const BEAT_MS = 5_000;
const P99_LIMIT_MS = 250;
const EPISODES = 20;
const numberOf = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const role = process.env.BENCH_ROLE;
const script = path.relative(path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url));

/** Bare upserts per second: the statement of one heartbeat before write-behind, 10 at a time, for `seconds`. */
async function bareUpsertsPerSecond(database: Database, userIds: string[], seconds: number): Promise<number> {
  let done = 0;
  const until = Date.now() + seconds * 1000;
  const worker = async (lane: number) => {
    for (let i = lane; Date.now() < until; i += 10) {
      await database.rawTransaction((sql) =>
        sql.query(
          `insert into users.history (user_id, video_id, episode_id, episode_number, position_seconds, updated_at)
           values ($1, 'bare', 'bare-ep1', 1, $2, now())
           on conflict (user_id, video_id) do update set position_seconds = excluded.position_seconds, updated_at = excluded.updated_at`,
          [userIds[i % userIds.length], i % 3600],
        ),
      );
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: 10 }, (_, lane) => worker(lane)));
  return done / seconds;
}

if (role === 'servers') {
  // The site as `npm start` runs it, background work (the heartbeats' flush) included.
  const config = loadConfig({ ...process.env, DATA_DIR: tempDir('bench-viewers-'), DEMO: '0' });
  const platform = await createPlatform(config);
  const { listener, instances, startBackground } = await composeTarget(platform, registry);
  await startPlatform(platform);
  const background = startBackground();
  const { admin } = instances.get('catalog')!.client as LocalCatalogClient;
  // A series of its own, its episodes planned (the viewers save positions in them).
  const seriesId = `bench-viewers-${Date.now()}`;
  await admin.createSeries({ id: seriesId, title: `Bench Viewers ${seriesId}`, tags: ['Romance'] });
  await admin.planEpisodes(seriesId, EPISODES);
  const server = http.createServer(listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const guests = await Promise.all(Array.from({ length: 50 }, async () => ((await (await fetch(`${url}/api/user`)).json()) as { data: { id: string } }).data.id));
  const bare = await bareUpsertsPerSecond(platform.database, guests, 2).then(() => bareUpsertsPerSecond(platform.database, guests, 5));
  fs.writeFileSync(process.env.BENCH_OUT!, JSON.stringify({ seriesId, bare, database: platform.database.kind }));
  console.log(`listening ${url}`);
  process.on('SIGTERM', async () => {
    server.close();
    await background.stop();
    await stopPlatform(platform);
    process.exit(0);
  });
} else {
  // Issue 28's goals: 3,000 viewers on the embedded defaults, 10,000 on PostgreSQL + Redis.
  const modes: { name: string; env: Record<string, string>; goal: number }[] = [{ name: 'embedded', env: {}, goal: 3_000 }];
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  // A scratch database (dropped after) and Redis prefix of its own: on a database an earlier run used,
  // the consumers were still working through that run's events while this one was measured.
  const scratch = `bench_viewers_${process.pid}`;
  const scratchUrl = databaseUrl ? Object.assign(new URL(databaseUrl), { pathname: `/${scratch}` }).toString() : null;
  if (databaseUrl && redisUrl)
    modes.push({ name: 'PostgreSQL + Redis', env: { DATABASE_URL: scratchUrl!, REDIS_URL: redisUrl, REDIS_PREFIX: scratch }, goal: 10_000 });
  else console.log('viewers (PostgreSQL + Redis): skipped, BENCH_DATABASE_URL and BENCH_REDIS_URL not set');
  for (const mode of modes) {
    if (mode.env.DATABASE_URL) await adminStatement(databaseUrl!, `create database ${scratch}`);
    try {
      await measure(mode.name, mode.env, mode.goal);
    } finally {
      if (mode.env.DATABASE_URL) await adminStatement(databaseUrl!, `drop database if exists ${scratch} with (force)`);
    }
  }
}


async function measure(name: string, env: Record<string, string>, goal: number) {
  const out = path.join(tempDir('bench-viewers-out-'), 'servers.json');
  let servers;
  try {
    servers = await startServer(script, { ...env, BENCH_ROLE: 'servers', BENCH_OUT: out });
  } catch (error) {
    console.log(`viewers (${name}): skipped, the site did not start (${(error as Error).message})`);
    return;
  }
  const { seriesId, bare } = JSON.parse(fs.readFileSync(out, 'utf8')) as { seriesId: string; bare: number };
  const deadline = Date.now() + numberOf('BENCH_MAX_SECONDS', 480) * 1000;
  const stageMs = numberOf('STAGE_SECONDS', 20) * 1000;
  const max = numberOf('VIEWERS_MAX', 20_000);
  let latencies: number[] = [];
  let failures = 0;
  let running = true;

  // node:http on kept-alive connections, not fetch: the simulated viewers share the cores with the site,
  // and fetch took about twice the CPU per call (undici's web streams), which the site then lacked.
  // An idle connection is let go after 4 s, before the server's 5 s (node:http's keepAliveTimeout) can
  // close it under a beat sent on it, as browsers and fetch do: the race is the client's, not the site's.
  const agent = new http.Agent({ keepAlive: true, timeout: 4_000 });
  const target = new URL(servers.url);
  function call(method: string, route: string, token: string | null, body?: unknown): Promise<{ status: number; token: string | null; code: number | null }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method,
          path: route,
          headers: { ...(token && { 'x-user-token': token }), ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            let code: number | null = null;
            try {
              code = (JSON.parse(Buffer.concat(chunks).toString()) as { code: number }).code;
            } catch {
              // Not an envelope: counted as a failure below.
            }
            const issued = answer.headers['x-user-token'];
            resolve({ status: answer.statusCode ?? 0, token: typeof issued === 'string' ? issued : null, code });
          });
          answer.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  async function timed(method: string, route: string, token: string | null, body?: unknown): Promise<string | null> {
    const started = performance.now();
    try {
      const answer = await call(method, route, token, body);
      if (answer.status !== 200 || answer.code !== 200) failures += 1;
      latencies.push(performance.now() - started);
      return answer.token;
    } catch {
      failures += 1;
      return null;
    }
  }

  /** One viewer: a guest who watches, saving every 5 s; about once a minute opens another episode or asks for itself. */
  async function viewer(startDelayMs: number) {
    await new Promise((resolve) => setTimeout(resolve, startDelayMs));
    const token = await timed('GET', '/api/user', null);
    if (!token) return;
    let episode = 1 + Math.floor(Math.random() * EPISODES);
    let position = 0;
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, BEAT_MS));
      if (!running) return;
      position += 5;
      const roll = Math.random();
      if (roll < 1 / 12) {
        await timed('POST', '/api/user/history', token, { episodeId: `${seriesId}-ep${episode}`, positionSeconds: position, final: true });
        episode = (episode % EPISODES) + 1;
        position = 0;
        await timed('GET', `/api/video?id=${seriesId}`, token);
      } else if (roll < 2 / 12) {
        await timed('GET', '/api/user', token);
      } else {
        await timed('POST', '/api/user/history', token, { episodeId: `${seriesId}-ep${episode}`, positionSeconds: position });
      }
    }
  }

  const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))] ?? 0;
  let viewers = numberOf('VIEWERS_START', 400);
  const joinMs = numberOf('JOIN_SECONDS', 30) * 1000;
  let held = 0;
  let heldP99 = 0;
  let stopReason = `reached VIEWERS_MAX (${max})`;
  const started: Promise<void>[] = [];
  for (;;) {
    // New viewers join spread over JOIN_SECONDS, as real ones do not arrive in step.
    while (started.length < viewers) started.push(viewer(Math.random() * joinMs));
    await new Promise((resolve) => setTimeout(resolve, joinMs + BEAT_MS * 2));
    latencies = [];
    failures = 0;
    await new Promise((resolve) => setTimeout(resolve, stageMs));
    const stageP99 = p99(latencies);
    if (failures > 0 || stageP99 > P99_LIMIT_MS) {
      stopReason = `${viewers.toLocaleString('en-US')} did not: p99 ${Math.round(stageP99)} ms, ${failures} failed`;
      break;
    }
    [held, heldP99] = [viewers, stageP99];
    if (viewers >= max) break;
    if (Date.now() + joinMs + stageMs + BEAT_MS * 2 > deadline) {
      stopReason = 'stopped at BENCH_MAX_SECONDS';
      break;
    }
    viewers = Math.min(max, viewers * 2);
  }
  running = false;
  await Promise.all(started);
  agent.destroy();
  await servers.stop();
  const count = (value: number) => Math.round(value).toLocaleString('en-US');
  console.log(
    `viewers (${name}): ${count(held)} held (p99 ${Math.round(heldP99)} ms, joining over ${joinMs / 1000} s; ${stopReason}; goal >= ${count(goal)}) / bare upserts ${count(bare)} per second = ${(held / bare).toFixed(2)} viewers per upsert/s (for reference; before write-behind a viewer was 0.2 upserts/s, at most 5 per upsert/s)`,
  );
}
