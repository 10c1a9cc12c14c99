// Instant starts, in Debian's Chromium: how long from a viewer's input to the first frame on screen.
//  - startup: on an episode page that is playing, a tap on another episode (one nothing preloaded)
//    until its first frame, against a bare page of hls.js (default settings, already loaded) playing
//    the same ladder from a static node:http server when its button is tapped;
//  - swipe: a swipe up to the next episode until its first frame, against that bare page starting
//    the same next episode cold (tapped, nothing preloaded).
// Both sides run on the same phone-sized page under the same emulated network (a good 4G link:
// NETWORK below; on loopback, fetching costs nothing and what a player fetches ahead cannot show),
// take turns, and the median of RUNS counts. The first frame is the first requestVideoFrameCallback
// of the new source (or its first timeupdate past 0, whichever comes first).
// The bare page is bench/servers/bare-hls.ts, its ladders from the site's media folder.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { renderDemoEpisode } from '../services/demo/src/index.ts';
import { startServer } from './lib.ts';
import { startSite, uploadSeries } from './site.ts';

const RUNS = Number(process.env.STARTUP_RUNS ?? 5);
const NETWORK = { latencyMs: 40, downMbps: 20, upMbps: 5 };
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'en-US' };

// Runs in every page: arm() before the input, then firstFrame() answers the milliseconds from the
// input event (a click or a touchend) to the first frame of whatever source the video then plays.
const FIRST_FRAME_PROBE = () => {
  const probe = window as unknown as { arm: () => void; firstFrame: Promise<number> };
  probe.arm = () => {
    probe.firstFrame = new Promise<number>((resolve) => {
      const onInput = (event: Event) => {
        removeEventListener('click', onInput, true);
        removeEventListener('touchend', onInput, true);
        const inputAt = event.timeStamp;
        const before = document.querySelector('video')?.src ?? '';
        const isNew = (video: HTMLVideoElement) => video.src !== '' && video.src !== before;
        let done = false;
        const finish = (at: number) => {
          if (!done) resolve(at - inputAt);
          done = true;
        };
        const watch = () => {
          const video = document.querySelector('video');
          if (!video || done) return;
          video.requestVideoFrameCallback((now) => (isNew(video) && video.currentTime >= 0 ? finish(now) : watch()));
        };
        const video = document.querySelector('video')!;
        video.addEventListener('timeupdate', function onTime() {
          if (isNew(video) && video.currentTime > 0) {
            video.removeEventListener('timeupdate', onTime);
            finish(performance.now());
          }
        });
        for (const type of ['loadedmetadata', 'emptied', 'playing']) video.addEventListener(type, watch);
        watch();
      };
      addEventListener('click', onInput, true);
      addEventListener('touchend', onInput, true);
    });
  };
};

async function newPhonePage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: NETWORK.latencyMs,
    downloadThroughput: (NETWORK.downMbps * 1e6) / 8,
    uploadThroughput: (NETWORK.upMbps * 1e6) / 8,
  });
  return page;
}

const firstFrame = (page: Page) => page.evaluate(() => (window as unknown as { firstFrame: Promise<number> }).firstFrame);
const arm = (page: Page) => page.evaluate(() => (window as unknown as { arm: () => void }).arm());
const playingPast = (page: Page, seconds: number) =>
  page.waitForFunction((past) => (document.querySelector('video')?.currentTime ?? 0) > past, seconds, { timeout: 60_000 });

/** Waits until the page fetched `episodeId`'s first segments (picture and sound): the preload of the next episode. */
async function preloaded(page: Page, episodeId: string): Promise<void> {
  await page.waitForFunction(
    (id) => performance.getEntriesByType('resource').filter((entry) => entry.name.includes(`/episodes/${id}/hls/`) && entry.name.endsWith('.ts')).length >= 2,
    episodeId,
    { timeout: 60_000 },
  );
}

interface SiteRun {
  tap: number;
  swipe: number;
}

/** The episode page: episode 1 playing, a tap on episode 3, then a swipe up to episode 4 once 3 plays. */
async function siteRun(context: BrowserContext, origin: string, series: string, episodes: string[]): Promise<SiteRun> {
  const page = await newPhonePage(context);
  try {
    await page.goto(`${origin}/videos/${encodeURIComponent(series)}?ep=${encodeURIComponent(episodes[0]!)}`);
    await playingPast(page, 0.5);
    await preloaded(page, episodes[1]!);
    await arm(page);
    await page.getByTestId('episode-3').click();
    const tap = await firstFrame(page);
    await playingPast(page, 0.5);
    await preloaded(page, episodes[3]!);
    await arm(page);
    await page.locator('.player').evaluate((element) => {
      const box = element.getBoundingClientRect();
      const at = (y: number) => new Touch({ identifier: 1, target: element, clientX: box.left + box.width / 2, clientY: y });
      const [start, end] = [at(box.top + box.height * 0.7), at(box.top + box.height * 0.2)];
      element.dispatchEvent(new TouchEvent('touchstart', { bubbles: true, cancelable: true, touches: [start], changedTouches: [start] }));
      element.dispatchEvent(new TouchEvent('touchend', { bubbles: true, cancelable: true, touches: [], changedTouches: [end] }));
    });
    const swipe = await firstFrame(page);
    if (!new URL(page.url()).searchParams.get('ep')?.includes(episodes[3]!)) throw new Error('the swipe did not open episode 4');
    return { tap, swipe };
  } finally {
    await page.close();
  }
}

interface BareRun {
  tap: number;
  next: number;
}

/** The bare page: a tap on episode 3, then, once it plays, a tap on episode 4 (cold: nothing preloaded). */
async function bareRun(context: BrowserContext, origin: string, masters: string[]): Promise<BareRun> {
  const page = await newPhonePage(context);
  try {
    await page.goto(`${origin}/?${masters.map((master) => `master=${encodeURIComponent(master)}`).join('&')}`);
    await page.waitForFunction(() => typeof (window as unknown as { Hls?: unknown }).Hls === 'function');
    await arm(page);
    await page.getByRole('button', { name: masters[0] }).click();
    const tap = await firstFrame(page);
    await playingPast(page, 0.5);
    await arm(page);
    await page.getByRole('button', { name: masters[1] }).click();
    const next = await firstFrame(page);
    return { tap, next };
  } finally {
    await page.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function benchmark(): Promise<void> {
  const site = await startSite();
  let bare: Awaited<ReturnType<typeof startServer>> | undefined;
  let browser: Browser | undefined;
  try {
    const clip = path.join(site.mediaDir, '..', 'bench-episode.mp4');
    await renderDemoEpisode({ outFile: clip, seriesTitle: 'Benchmark Hearts', episodeNumber: 1, seconds: 12, hue: 200 });
    const series = await uploadSeries(site, 'Benchmark Hearts', fs.readFileSync(clip), 4);
    const episodes = series.episodes.sort((a, b) => a.number - b.number).map((episode) => episode.id);
    bare = await startServer('servers/bare-hls.ts', { BENCH_MEDIA: site.mediaDir });
    const bareOrigin = new URL(bare.url).origin;
    const masters = [episodes[2]!, episodes[3]!].map((id) => `/media/episodes/${id}/hls/master.m3u8`);

    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    // One context a side, kept across runs: a returning viewer's browser, which holds the site's
    // scripts and the bandwidth its player measured (hls.js for the bare page).
    const [siteContext, bareContext] = await Promise.all([browser.newContext(PHONE), browser.newContext(PHONE)]);
    for (const context of [siteContext, bareContext]) {
      // tsx keeps function names with a helper the page does not have: functions sent there call it.
      await context.addInitScript({ content: 'globalThis.__name = (fn) => fn;' });
      await context.addInitScript(FIRST_FRAME_PROBE);
    }
    // Each run a new guest all the same, with nothing to resume: every swipe starts an episode from 0.
    await siteContext.addInitScript({ content: "localStorage.removeItem('cliffhanger.userToken');" });
    await siteRun(siteContext, site.origin, series.id, episodes);
    await bareRun(bareContext, bareOrigin, masters);
    const siteRuns: SiteRun[] = [];
    const bareRuns: BareRun[] = [];
    for (let run = 0; run < RUNS; run++) {
      siteRuns.push(await siteRun(siteContext, site.origin, series.id, episodes));
      bareRuns.push(await bareRun(bareContext, bareOrigin, masters));
    }
    const tap = median(siteRuns.map((r) => r.tap));
    const bareTap = median(bareRuns.map((r) => r.tap));
    const swipe = median(siteRuns.map((r) => r.swipe));
    const cold = median(bareRuns.map((r) => r.next));
    const ms = (value: number) => `${Math.round(value)} ms`;
    console.log(`startup: first frame ${ms(tap)} vs bare hls.js ${ms(bareTap)} = ${(tap / bareTap).toFixed(2)} (goal <= 1.2)`);
    console.log(`swipe: ${ms(swipe)} vs cold start ${ms(cold)} = ${(swipe / cold).toFixed(2)} (goal <= 0.5)`);
    if (process.env.STARTUP_VERBOSE) console.log(JSON.stringify({ siteRuns, bareRuns }));
  } finally {
    await browser?.close();
    await bare?.stop();
    await site.stop();
  }
}

await benchmark();
