// The whole site as `npm start` runs it (the gateway's entry point, production settings, the built
// storefront), on a fresh data directory without the demo catalog, with series uploaded through the
// admin API: for benchmarks that drive a browser against the real thing.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { eventually, freePort, repoRoot, startSiteProcess, type SiteProcess, type SiteProcessOptions } from '@cliffhanger/platform/testing';

const root = repoRoot;
const ADMIN_TOKEN = 'bench-site-admin-token-0123456789abcdef';

export interface BenchSite {
  origin: string;
  /** Where the site keeps its media on disk: DATA_DIR/media, storage keys below it. */
  mediaDir: string;
  stop(): Promise<void>;
}

/**
 * `npm start`'s entry point on a data directory, as a production site runs it (no mail is sent, test
 * payments asked for by name, a benchmark's one address far over the per-address limits), once it is ready.
 */
export async function startSiteProcessForBench(options: { demo: boolean; adminToken: string } & Omit<SiteProcessOptions, 'env'>): Promise<SiteProcess> {
  const { demo, adminToken, ...rest } = options;
  const port = rest.port ?? (await freePort());
  return startSiteProcess({
    dataDirPrefix: 'bench-site-',
    echoErrors: true,
    ...rest,
    port,
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DEMO: demo ? '1' : '0',
      ADMIN_TOKEN: adminToken,
      SMTP_URL: 'smtp://127.0.0.1:2525',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PAYMENT_PROVIDER: 'sandbox',
      SHUTDOWN_ANNOUNCE_SECONDS: '0',
      RATE_LIMIT_GUEST_PER_MINUTE: '1000000',
      RATE_LIMIT_HISTORY_PER_MINUTE: '1000000',
      RATE_LIMIT_PIXEL_PER_MINUTE: '1000000',
    },
  });
}

export async function startSite(): Promise<BenchSite> {
  execFileSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { stdio: 'inherit', cwd: root });
  const site = await startSiteProcessForBench({ demo: false, adminToken: ADMIN_TOKEN, readyTimeoutMs: 180_000, readyWhat: 'the site start' });
  return { origin: site.origin, mediaDir: path.join(site.dataDir, 'media'), stop: site.stop };
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
  const episodes = await eventually(
    async () => {
      const { episodes: listed } = await call<{ episodes: (UploadedEpisode & { ready: boolean })[] }>(`${site.origin}/api/video?id=${encodeURIComponent(video.id)}`);
      return listed.length === count && listed.every((episode) => episode.ready) ? listed.map(({ id, number }) => ({ id, number })) : null;
    },
    { timeoutMs: 15 * 60_000, what: 'the transcodes', intervalMs: 500, retryErrors: true },
  );
  return { id: video.id, episodes };
}
