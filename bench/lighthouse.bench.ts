// Lighthouse (mobile preset: a mid-range phone on a slow 4G link, simulated) on "/" and on a series
// page, as a new visitor: a fresh Chromium profile for every run, storage cleared. The site is the
// real `npm start` with its demo catalog: a first start renders the covers and the first episode;
// a second start on the same data, without the seeder, is what gets measured, so no ffmpeg shares
// the cores with the browser. Each page is run LIGHTHOUSE_RUNS times (3) and the median run printed.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { demoCatalog } from '@cliffhanger/demo';
import { benchDir } from './lib.ts';
import { freePort, siteProcess, until } from './site.ts';

const GOALS = { performance: 95, seo: 95, accessibility: 100 };
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
// A directory to keep every run's full report in (JSON, for Lighthouse's viewer or jq), when set.
const REPORTS = process.env.LIGHTHOUSE_REPORTS;
const CHROME = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const ADMIN_TOKEN = 'lighthouse-bench-admin-token-0123456789';
const root = path.resolve(benchDir, '..');

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

const json = async (url: string, headers: Record<string, string> = {}) => (await (await fetch(url, { headers })).json()) as { code: number; data: any };

/** No episode waiting for or in a transcode: the measured site's cores belong to the browser. */
async function transcodesSettled(origin: string): Promise<true | null> {
  for (const series of demoCatalog.series) {
    const { data } = await json(`${origin}/api/admin/videos/${series.id}`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    if (data.episodes.some((episode: { status: string }) => episode.status === 'pending' || episode.status === 'processing')) return null;
  }
  return true;
}

interface PageResult {
  performance: number;
  seo: number;
  accessibility: number;
  lcpMs: number;
  tbtMs: number;
  failing: string[];
  /** Lighthouse's code for a run that measured nothing. */
  runtimeError?: string;
}

async function audit(url: string): Promise<PageResult> {
  const profile = await mkdtemp(path.join(tmpdir(), 'lighthouse-profile-'));
  const chrome = await chromeLauncher.launch({
    chromePath: CHROME,
    userDataDir: profile,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'seo', 'accessibility'] });
    if (!result) throw new Error(`lighthouse: no result for ${url}`);
    if (REPORTS) {
      await mkdir(REPORTS, { recursive: true });
      await writeFile(path.join(REPORTS, `${new URL(url).pathname.replace(/[^\w-]+/g, '_')}-${Date.now()}.json`), JSON.stringify(result.lhr));
    }
    const { categories, audits } = result.lhr;
    const score = (name: string) => Math.round((categories[name]?.score ?? 0) * 100);
    const failing = Object.values(categories).flatMap((category) =>
      category.auditRefs
        .filter((ref) => ref.weight > 0 && audits[ref.id]?.score !== null && (audits[ref.id]?.score ?? 1) < 0.9)
        .map((ref) => `${category.id}/${ref.id}`),
    );
    return {
      runtimeError: result.lhr.runtimeError?.code,
      performance: score('performance'),
      seo: score('seo'),
      accessibility: score('accessibility'),
      lcpMs: audits['largest-contentful-paint']?.numericValue ?? NaN,
      tbtMs: audits['total-blocking-time']?.numericValue ?? NaN,
      failing,
    };
  } finally {
    chrome.kill();
    await rm(profile, { recursive: true, force: true }).catch(() => undefined);
  }
}

const median = (results: PageResult[]) => [...results].sort((a, b) => a.performance - b.performance)[Math.floor(results.length / 2)]!;

execFileSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { stdio: 'inherit', cwd: root });
const dataDir = await mkdtemp(path.join(tmpdir(), 'lighthouse-site-'));
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
let site = siteProcess(port, dataDir, { demo: true, adminToken: ADMIN_TOKEN });
let status = 0;
try {
  // First start: the demo catalog's series, covers and sections, and its first playable episode.
  await until('the demo catalog', 15 * 60_000, async () => ((await fetch(`${origin}/readyz`)).ok ? true : null));
  await stop(site);
  site = siteProcess(port, dataDir, { demo: false, adminToken: ADMIN_TOKEN });
  await until('the second start', 120_000, async () => ((await fetch(`${origin}/readyz`)).ok ? true : null));
  await until('the transcodes in flight', 10 * 60_000, () => transcodesSettled(origin));

  const { data: homepage } = await json(`${origin}/api/homepage`);
  const candidates: string[] = [...homepage.carousel.items, ...homepage.sections.flatMap((section: { items: unknown[] }) => section.items)].map((card: any) => card.id);
  const playable = await until('a series with a playable first episode', 10_000, async () => {
    for (const id of candidates) if ((await json(`${origin}/api/video?id=${encodeURIComponent(id)}`)).data.episodes[0]?.ready) return id;
    return null;
  });

  for (const page of ['/', `/videos/${encodeURIComponent(playable)}`]) {
    const runs: PageResult[] = [];
    // A run whose trace Lighthouse could not read (NO_NAVSTART, now and then in a fresh profile) is
    // run again, up to twice: it measured nothing, and a zero would drag the median down.
    for (let run = 0, retries = 0; run < RUNS; ) {
      const result = await audit(origin + page);
      if (result.runtimeError && retries < 2) {
        retries++;
        continue;
      }
      runs.push(result);
      run++;
    }
    const result = median(runs);
    const met = result.performance >= GOALS.performance && result.seo >= GOALS.seo && result.accessibility >= GOALS.accessibility;
    if (!met) status = 1;
    console.log(
      `lighthouse ${page}: performance ${result.performance}, SEO ${result.seo}, accessibility ${result.accessibility}, ` +
        `LCP ${(result.lcpMs / 1000).toFixed(1)} s, TBT ${Math.round(result.tbtMs)} ms ` +
        `(median of ${RUNS}; goal performance >= ${GOALS.performance}, SEO >= ${GOALS.seo}, accessibility ${GOALS.accessibility})` +
        (result.failing.length ? `; below 0.9: ${result.failing.join(', ')}` : ''),
    );
  }
} finally {
  await stop(site);
  await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
}
process.exit(status);
