// Lighthouse (mobile preset: a mid-range phone on a slow 4G link, simulated) on "/" and on a series
// page, as a new visitor: a fresh Chromium profile for every run, storage cleared. The site is the
// real `npm start` with its demo catalog: a first start renders the covers and the first episode;
// a second start on the same data, without the seeder, is what gets measured, so no ffmpeg shares
// the cores with the browser. Each page is run LIGHTHOUSE_RUNS times (5), the pages taking turns, and
// the median run printed.
// The CPU slowdown is calibrated to this machine first (see cpuSlowdownFor), and every run uses it.
// Beside the scores, the series page's main-thread time at load (Lighthouse's mainthread-work-breakdown)
// against a bare page of hls.js (bench/servers/bare-hls.ts) playing the same master playlist URL, with
// the same preset and slowdown; and the same page in parts, to show where that time goes: the
// server-rendered page alone (the app's entry chunk blocked: no hydration, no player), and the page
// hydrated without its player (hls.js's chunk blocked).
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { demoCatalog } from '@cliffhanger/demo';
import { benchDir, startServer } from './lib.ts';
import { eventually, freePort, type SiteProcess } from '@cliffhanger/platform/testing';
import { startSiteProcessForBench } from './site.ts';

const GOALS = { performance: 95, seo: 100, accessibility: 100 };
/** The series page's main-thread time at load over the bare hls.js page's, at most. */
const MAIN_THREAD_GOAL = 1.3;
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 5);
const CALIBRATION_RUNS = 3;

// A directory to keep every run's full report in (JSON, for Lighthouse's viewer or jq), when set.
const REPORTS = process.env.LIGHTHOUSE_REPORTS;
const CHROME = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const ADMIN_TOKEN = 'lighthouse-bench-admin-token-0123456789';
const root = path.resolve(benchDir, '..');

const json = async (url: string, headers: Record<string, string> = {}) => (await (await fetch(url, { headers })).json()) as { code: number; data: any };

/** No episode waiting for or in a transcode: the measured site's cores belong to the browser. */
async function transcodesSettled(origin: string): Promise<true | null> {
  for (const series of demoCatalog.series) {
    const { data } = await json(`${origin}/api/admin/videos/${series.id}`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    if (data.episodes.some((episode: { status: string }) => episode.status === 'pending' || episode.status === 'processing')) return null;
  }
  return true;
}

/**
 * The CPU slowdown that makes this machine the mid-tier phone Lighthouse's mobile preset stands for
 * (its 4x assumes a desktop of benchmarkIndex ~1500): Lighthouse's docs/throttling.md, "Calibrating the
 * CPU slowdown" (Lighthouse 12's slow-host warning links it as #calibrating-multipliers), sends you to
 * its CPU throttling calculator, https://lighthouse-cpu-throttling-calculator.vercel.app/
 * (patrickhulce/lighthouse-cpu-throttling-calculator, pages/index.js, computeMultiplierMessages): linear
 * between 150 = 1x, 800 = 2x, 1300 = 3x, then 233 a step (1533 = 4x, 2000 = 6x); below 150 a machine is
 * too slow to emulate the phone at all (null). Rounded to a tenth, as the calculator prints it.
 */
function cpuSlowdownFor(benchmarkIndex: number): number | null {
  const multiplier =
    benchmarkIndex >= 1300 ? 3 + (benchmarkIndex - 1300) / 233
    : benchmarkIndex >= 800 ? 2 + (benchmarkIndex - 800) / 500
    : benchmarkIndex >= 150 ? 1 + (benchmarkIndex - 150) / 650
    : null;
  return multiplier === null ? null : Math.round(multiplier * 10) / 10;
}

interface PageResult {
  performance: number;
  seo: number;
  accessibility: number;
  lcpMs: number;
  tbtMs: number;
  /** Lighthouse's mainthread-work-breakdown: main-thread time at load, slowed down like the CPU. */
  mainThreadMs: number;
  /** lhr.environment.benchmarkIndex: this run's measure of the machine. */
  benchmarkIndex: number;
  failing: string[];
  /** Lighthouse's code for a run that measured nothing. */
  runtimeError?: string;
}

async function audit(url: string, cpuSlowdownMultiplier?: number, blockedUrlPatterns: string[] = []): Promise<PageResult> {
  const profile = await mkdtemp(path.join(tmpdir(), 'lighthouse-profile-'));
  const chrome = await chromeLauncher.launch({
    chromePath: CHROME,
    userDataDir: profile,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'seo', 'accessibility'],
      // The mobile preset (Lighthouse's default: simulated slow 4G) with this machine's CPU slowdown.
      ...(cpuSlowdownMultiplier !== undefined && { throttling: { cpuSlowdownMultiplier } }),
      blockedUrlPatterns,
    });
    if (!result) throw new Error(`lighthouse: no result for ${url}`);
    if (cpuSlowdownMultiplier !== undefined && result.lhr.configSettings.throttling.cpuSlowdownMultiplier !== cpuSlowdownMultiplier) {
      throw new Error(`lighthouse did not take cpuSlowdownMultiplier ${cpuSlowdownMultiplier}`);
    }
    if (REPORTS) {
      await mkdir(REPORTS, { recursive: true });
      await writeFile(path.join(REPORTS, `${new URL(url).port}${new URL(url).pathname.replace(/[^\w-]+/g, '_')}-${Date.now()}.json`), JSON.stringify(result.lhr));
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
      mainThreadMs: audits['mainthread-work-breakdown']?.numericValue ?? NaN,
      benchmarkIndex: result.lhr.environment.benchmarkIndex,
      failing,
    };
  } finally {
    chrome.kill();
    await rm(profile, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The middle item by `key` (the upper middle of an even count). */
const middle = <T>(items: T[], key: (item: T) => number): T => [...items].sort((a, b) => key(a) - key(b))[Math.floor(items.length / 2)]!;
const median = (values: number[]) => middle(values, (value) => value);

execFileSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { stdio: 'inherit', cwd: root });
const dataDir = await mkdtemp(path.join(tmpdir(), 'lighthouse-site-'));
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
let site: SiteProcess | undefined;
let status = 0;
let bare: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  // First start: the demo catalog's series, covers and sections, and its first playable episode.
  site = await startSiteProcessForBench({ port, dataDir, demo: true, adminToken: ADMIN_TOKEN, readyTimeoutMs: 15 * 60_000, readyWhat: 'the demo catalog' });
  await site.stop();
  site = await startSiteProcessForBench({ port, dataDir, demo: false, adminToken: ADMIN_TOKEN, readyTimeoutMs: 120_000, readyWhat: 'the second start' });
  await eventually(() => transcodesSettled(origin), { timeoutMs: 10 * 60_000, what: 'the transcodes in flight', intervalMs: 500, retryErrors: true });

  const { data: homepage } = await json(`${origin}/api/homepage`);
  const candidates: string[] = [...homepage.carousel.items, ...homepage.sections.flatMap((section: { items: unknown[] }) => section.items)].map((card: any) => card.id);
  const playable = await eventually(
    async () => {
      for (const id of candidates) if ((await json(`${origin}/api/video?id=${encodeURIComponent(id)}`)).data.episodes[0]?.ready) return id;
      return null;
    },
    { timeoutMs: 10_000, what: 'a series with a playable first episode', intervalMs: 500, retryErrors: true },
  );

  // The episode the series page plays (a new visitor: the first), and its master playlist URL as the
  // site gives it to the player; the bare page plays that URL, passed through to the site.
  const { data: series } = await json(`${origin}/api/video?id=${encodeURIComponent(playable)}`);
  const { code, data: episode } = await json(`${origin}/api/video/episode?id=${encodeURIComponent(series.episodes[0].id)}`);
  if (code !== 200) throw new Error(`GET /api/video/episode: ${code}`);
  bare = await startServer('servers/bare-hls.ts', { BENCH_MEDIA_ORIGIN: origin });
  const bareOrigin = new URL(bare.url).origin;

  // Calibration: Lighthouse's benchmarkIndex from short runs (the bare page, nothing playing), the
  // median of CALIBRATION_RUNS: one reading swings with whatever else the machine is doing.
  const readings: number[] = [];
  for (let run = 0; run < CALIBRATION_RUNS; run++) readings.push((await audit(`${bareOrigin}/`)).benchmarkIndex);
  const benchmarkIndex = median(readings);
  const calibrated = cpuSlowdownFor(benchmarkIndex);
  const cpuSlowdownMultiplier = calibrated ?? 1;
  console.log(
    `calibration: benchmarkIndex ${Math.round(benchmarkIndex)} (median of ${readings.map(Math.round).join(', ')}), cpuSlowdownMultiplier ${cpuSlowdownMultiplier}` +
      (calibrated === null ? ' (below 150: too slow to emulate the reference phone, not slowed down)' : ''),
  );

  const seriesPage = `/videos/${encodeURIComponent(playable)}`;
  // The built chunks the parts leave out, by the build's manifest: the app's entry (hydration, data,
  // player: everything but the page's own script) and hls.js (the player's library).
  const manifest = JSON.parse(await readFile(path.join(root, 'storefront/dist/.vite/manifest.json'), 'utf8')) as Record<string, { file: string }>;
  const chunk = (source: RegExp) => {
    const entry = Object.entries(manifest).find(([key]) => source.test(key));
    if (!entry) throw new Error(`no chunk of ${source} in the build's manifest`);
    return `*/${entry[1].file}`;
  };
  const measured = (url: string, blocked: string[] = []) => ({ url, blocked, runs: [] as PageResult[], retries: 0 });
  const home = measured(`${origin}/`);
  const seriesWhole = measured(origin + seriesPage);
  const barePage = measured(`${bareOrigin}/?autoplay&master=${encodeURIComponent(episode.playback.url)}`);
  const pageAlone = measured(origin + seriesPage, [chunk(/^src\/main\.tsx$/)]);
  const withoutPlayer = measured(origin + seriesPage, [chunk(/node_modules\/hls\.js\/dist\/hls\.mjs$/)]);
  const pages = [home, seriesWhole, barePage, pageAlone, withoutPlayer];
  // The pages take turns, so that a neighbour's burst on the shared cores slows them alike.
  for (let run = 0; run < RUNS; run++) {
    for (const page of pages) {
      // A run whose trace Lighthouse could not read (NO_NAVSTART, now and then in a fresh profile) is
      // run again, up to twice a page: it measured nothing, and a zero would drag the median down.
      let result = await audit(page.url, cpuSlowdownMultiplier, page.blocked);
      while (result.runtimeError && page.retries < 2) {
        page.retries++;
        result = await audit(page.url, cpuSlowdownMultiplier, page.blocked);
      }
      page.runs.push(result);
    }
  }
  const indexOf = (runs: PageResult[]) => `benchmarkIndex ${Math.round(median(runs.map((run) => run.benchmarkIndex)))}`;
  for (const [page, { runs }] of [['/', home], [seriesPage, seriesWhole]] as const) {
    const result = middle(runs, (run) => run.performance);
    const met = result.performance >= GOALS.performance && result.seo >= GOALS.seo && result.accessibility >= GOALS.accessibility;
    if (!met) status = 1;
    console.log(
      `lighthouse ${page}: performance ${result.performance}, SEO ${result.seo}, accessibility ${result.accessibility}, ` +
        `LCP ${(result.lcpMs / 1000).toFixed(1)} s, TBT ${Math.round(result.tbtMs)} ms ` +
        `(median of ${RUNS}; goal performance >= ${GOALS.performance}, SEO ${GOALS.seo}, accessibility ${GOALS.accessibility}; ` +
        `${indexOf(runs)}, cpuSlowdownMultiplier ${cpuSlowdownMultiplier})` +
        (result.failing.length ? `; below 0.9: ${result.failing.join(', ')}` : ''),
    );
  }
  const mainThreadOf = (page: { runs: PageResult[] }) => median(page.runs.map((run) => run.mainThreadMs));
  const [siteMs, bareMs] = [mainThreadOf(seriesWhole), mainThreadOf(barePage)];
  const ratio = siteMs / bareMs;
  if (!(ratio <= MAIN_THREAD_GOAL)) status = 1;
  console.log(
    `series main thread: site ${(siteMs / 1000).toFixed(1)} s / bare hls.js ${(bareMs / 1000).toFixed(1)} s = ${ratio.toFixed(2)} ` +
      `(goal <= ${MAIN_THREAD_GOAL}; ${indexOf([...seriesWhole.runs, ...barePage.runs])}, cpuSlowdownMultiplier ${cpuSlowdownMultiplier})`,
  );
  // Where the series page's time goes, each part against the whole bare page.
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s (${(ms / bareMs).toFixed(2)})`;
  console.log(
    `series main thread by part, against bare hls.js: server-rendered page alone ${seconds(mainThreadOf(pageAlone))}, ` +
      `hydrated without the player ${seconds(mainThreadOf(withoutPlayer))}, whole ${seconds(siteMs)} ` +
      `(for reference; ${indexOf([...pageAlone.runs, ...withoutPlayer.runs])}, cpuSlowdownMultiplier ${cpuSlowdownMultiplier})`,
  );
} finally {
  await bare?.stop();
  await site?.stop();
  await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
}
process.exit(status);
