// The whole site as `npm start` runs it (the gateway's entry point, production settings, the built
// storefront), on a fresh data directory without the demo catalog, with series uploaded through the
// admin API: for benchmarks that drive a browser against the real thing.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchDir } from './lib.ts';

const root = path.resolve(benchDir, '..');
const ADMIN_TOKEN = 'bench-site-admin-token-0123456789abcdef';

export interface BenchSite {
  origin: string;
  /** Where the site keeps its media on disk: DATA_DIR/media, storage keys below it. */
  mediaDir: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Waits until `check` answers something (not null and not throwing), trying every half second. */
export async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check().catch(() => null);
    if (value !== null) return value;
    await sleep(500);
  }
  throw new Error(`${what} did not happen in ${timeoutMs / 1000} s`);
}

/**
 * `npm start`'s entry point on a data directory, as a production site runs it (no mail is sent, test
 * payments asked for by name, a benchmark's one address far over the per-address limits).
 */
export function siteProcess(port: number, dataDir: string, options: { demo: boolean; adminToken: string }): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(root, 'gateway/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      DEMO: options.demo ? '1' : '0',
      ADMIN_TOKEN: options.adminToken,
      SMTP_URL: 'smtp://127.0.0.1:2525',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PAYMENT_PROVIDER: 'sandbox',
      SHUTDOWN_ANNOUNCE_SECONDS: '0',
      RATE_LIMIT_GUEST_PER_MINUTE: '1000000',
      RATE_LIMIT_HISTORY_PER_MINUTE: '1000000',
      RATE_LIMIT_PIXEL_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function startSite(): Promise<BenchSite> {
  execFileSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { stdio: 'inherit', cwd: root });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-site-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = siteProcess(port, dataDir, { demo: false, adminToken: ADMIN_TOKEN });
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await until('the site start', 180_000, async () => {
      if (child.exitCode !== null) throw new Error(`the site exited with ${child.exitCode}`);
      return (await fetch(`${origin}/readyz`)).ok ? true : null;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, mediaDir: path.join(dataDir, 'media'), stop };
}

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

async function call<T>(url: string, init: RequestInit = {}): Promise<T> {
  const answer = (await (await fetch(url, init)).json()) as Envelope<T>;
  if (answer.code !== 200) throw new Error(`${init.method ?? 'GET'} ${url}: ${answer.code} ${answer.message}`);
  return answer.data;
}

export interface UploadedEpisode {
  id: string;
  number: number;
}

/** A free series of one clip uploaded `count` times, once every episode is transcoded and ready. */
export async function uploadSeries(site: BenchSite, title: string, clip: Buffer, count: number): Promise<{ id: string; episodes: UploadedEpisode[] }> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const { video } = await call<{ video: { id: string } }>(`${site.origin}/api/admin/videos`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ title, description: 'Benchmark episodes.', tags: ['Romance'], freeEpisodes: count, priceCoins: 30 }),
  });
  for (let number = 1; number <= count; number++) {
    await call(`${site.origin}/api/admin/videos/${video.id}/episodes?number=${number}`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'video/mp4' },
      body: new Uint8Array(clip),
    });
  }
  const episodes = await until('the transcodes', 15 * 60_000, async () => {
    const { episodes: listed } = await call<{ episodes: (UploadedEpisode & { ready: boolean })[] }>(`${site.origin}/api/video?id=${encodeURIComponent(video.id)}`);
    return listed.length === count && listed.every((episode) => episode.ready) ? listed.map(({ id, number }) => ({ id, number })) : null;
  });
  return { id: video.id, episodes };
}
