import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadPaidSeries, waitForDemoCatalog, waitForFreeEpisode, waitForLockedEpisode, type DemoCatalog, type PaidSeries } from './catalog';
import { eventually, SiteExited } from '@cliffhanger/platform/testing';
import { launchChromium, startSite, type RunningSite } from './harness';
import { callsNamed, NO_PIXEL_ENV, PIXEL_ENV, PIXEL_IDS, pixelCalls, routeThirdParties, VENDOR_SCRIPTS, waitForPixelCalls, type PixelCalls, type VendorAnswer } from './pixels';

let site: RunningSite;
let browser: Browser;
let catalog: DemoCatalog;
let viewer: BrowserContext;
const pageErrors: string[] = [];

// A fresh site transcodes the demo catalog episode 1 of every series first, then every episode 2 (the
// harness's DEMO_EPISODES=2 stops there): a second episode takes a few minutes more. The later ones,
// locked after the free ones, are listed from the start.
const SECOND_EPISODE_TIMEOUT_MS = 600_000;
const LOCKED_EPISODE_TIMEOUT_MS = 120_000;

beforeAll(async () => {
  // With every ad pixel configured: each page the suite opens loads them all (as stand-ins, below).
  // A site named by E2E_BASE_URL must run with the same ids (e2e/pixels.ts).
  site = await startSite({ env: PIXEL_ENV });
  catalog = await waitForDemoCatalog(site);
  browser = await launchChromium();
  viewer = await newContext();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

/** What each context asked of other sites than ours: the ad pixels' scripts, and anything else (refused). */
const thirdPartyRequests = new WeakMap<BrowserContext, string[]>();

interface ContextOptions {
  viewport?: { width: number; height: number };
  isMobile?: boolean;
  hasTouch?: boolean;
  /** How the ad vendors answer; nothing ever reaches the internet. */
  vendors?: VendorAnswer;
  baseUrl?: string;
}

async function newContext({ viewport = { width: 1280, height: 860 }, vendors = 'stand-ins', baseUrl = site.baseUrl, ...device }: ContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport, locale: 'en-US', ...device });
  thirdPartyRequests.set(context, await routeThirdParties(context, new URL(baseUrl).origin, vendors));
  return context;
}

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
  // Every viewer's token and every playback grant the site hands out: none may reach its logs.
  page.on('response', (response) => {
    const token = response.headers()['x-user-token'];
    if (token) site.keepSecret(token);
    const grant = /^\/media\/g\/([^/]+)\//.exec(new URL(response.url()).pathname)?.[1];
    if (grant) site.keepSecret(grant);
  });
  return page;
}

/** A page's hit of our own pixel: `landing` for the first page of a visit, `page_view` for the others (docs/analytics.md). */
const pageHit = (hit: URLSearchParams) => hit.get('event') === 'landing' || hit.get('event') === 'page_view';

/** The statics.png hits a page sends, as their queries, from now on. */
const staticsHits = (page: Page) => {
  const hits: URLSearchParams[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/api/statics.png') hits.push(url.searchParams);
  });
  return hits;
};

/** #app holds React's root (react-dom's container key) and its server-rendered page is hydrated: a fiber on the page's heading or carousel. */
const hydrated = (page: Page) =>
  page.waitForFunction(() => {
    const app = document.getElementById('app');
    const content = document.querySelector('main h1, main .carousel');
    const hasKey = (node: object | null, prefix: string) => Boolean(node && Object.keys(node).some((key) => key.startsWith(prefix)));
    return hasKey(app, '__reactContainer$') && hasKey(content, '__reactFiber$');
  });

const apiCalls = (page: Page) => {
  const seen: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/api/') && !request.url().includes('/api/statics.png')) seen.push(request);
  });
  return seen;
};

describe('the storefront against the real site', () => {
  it('keeps token, fbclid and ttclid of the landing URL and sends them on later calls', async () => {
    const context = await newContext();
    const page = await newPage(context);
    // The page arrives server-rendered; the app's first call follows once it has painted.
    const firstUserCall = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/user');
    await page.goto('/?token=ref-e2e&fbclid=fb-e2e&ttclid=tt-e2e');
    const userCall = await firstUserCall;
    expect(userCall.headers()['x-referrer-token']).toBe('ref-e2e');

    // The series page (server-rendered too) asks for the viewer's own view of the series once its app runs.
    const seriesCall = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/video');
    await page.locator('.row .tile').first().click();
    await page.waitForURL(/\/videos\//);
    const videoCall = await seriesCall;
    const token = await page.evaluate(() => localStorage.getItem('cliffhanger.userToken'));
    expect(token).toBeTruthy();
    expect(videoCall.headers()).toMatchObject({
      'x-referrer-token': 'ref-e2e',
      'x-fbclid': 'fb-e2e',
      'x-ttclid': 'tt-e2e',
      'x-user-token': token,
    });
    const query = new URL(videoCall.url()).searchParams;
    expect([query.get('fbclid'), query.get('ttclid')]).toEqual(['fb-e2e', 'tt-e2e']);
    // Kept once the current-user call has answered.
    await page.waitForFunction(() => localStorage.getItem('cliffhanger.userId'));
    await context.close();
  });

  it('shows the home page with its carousel and sections, switches categories, and browses', async () => {
    const page = await newPage(viewer);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Featured Videos' }).waitFor();
    expect(await page.locator('.row').count()).toBeGreaterThan(0);

    await page.getByRole('tab', { name: 'Browse' }).click();
    await page.locator('[role="tabpanel"] .poster-grid .tile').first().waitFor();
    await page.getByRole('tab', { name: 'Recommend' }).click();
    await page.locator('.chip-bar .chip').nth(1).click();
    await page.locator('[role="tabpanel"] .poster-grid .tile').first().waitFor();

    await page.goto(`/browse/${encodeURIComponent(catalog.tagId)}`);
    await page.locator('.poster-grid .tile').first().waitFor();
    await page.getByText(/^(No more content|Load more)$/).waitFor();
    await page.goto(`/more/${encodeURIComponent(catalog.sectionId)}`);
    await page.locator('.poster-grid .tile').first().waitFor();
    await page.close();
  });

  it('plays a free episode and records the watch history', async () => {
    const page = await newPage(viewer);
    const historyPost = page.waitForRequest(
      (request) => request.method() === 'POST' && new URL(request.url()).pathname === '/api/user/history',
      { timeout: 90_000 },
    );
    await page.goto(`/videos/${encodeURIComponent(catalog.playable.id)}`);
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 1, undefined, { timeout: 90_000 });
    const posted = (await historyPost).postDataJSON() as { episodeId: string; positionSeconds: number };
    expect(posted.episodeId).toBe(catalog.playable.firstEpisodeId);

    await page.getByRole('button', { name: 'My List' }).click();
    await page.getByRole('button', { name: 'In My List' }).waitFor();
    await page.close();
  });

  it('lists the series in My List and in the watch history', async () => {
    const page = await newPage(viewer);
    await page.goto('/favorites');
    await page.getByRole('heading', { name: 'My List' }).waitFor();
    await page.locator('.poster-grid .tile__title', { hasText: catalog.playable.title }).waitFor();
    await page.goto('/historys');
    await page.locator('.history-row', { hasText: catalog.playable.title }).waitFor();
    await page.close();
  });

  it('resumes the series where the viewer stopped', async () => {
    const page = await newPage(viewer);
    await page.goto(`/videos/${encodeURIComponent(catalog.playable.id)}`);
    const resume = page.getByText(/^Resume episode 1 at 00:\d\d$/);
    await resume.waitFor();
    // Where the first test left it (whole seconds, saved as it closed): past the start.
    const savedAt = Number(/(\d\d)$/.exec((await resume.textContent()) ?? '')?.[1]);
    expect(savedAt).toBeGreaterThanOrEqual(1);
    // The first moment the picture moves, it is already there: playback began at the resume point.
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 0, undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => document.querySelector('video')!.currentTime)).toBeGreaterThanOrEqual(savedAt);
    await page.close();
  });

  it('searches as you type, keeps the search history, clears it and cancels', async () => {
    const page = await newPage(viewer);
    const calls = apiCalls(page);
    await page.goto('/');
    await page.locator('.header__search').click();
    const input = page.getByPlaceholder('What you like...');
    await input.waitFor();
    const keyword = catalog.playable.title.split(/\s+/).find((word) => word.length >= 4)?.slice(0, 4) ?? catalog.playable.title.slice(0, 3);
    await input.pressSequentially(keyword, { delay: 40 });
    await page.locator('.poster-grid .tile__title', { hasText: catalog.playable.title }).waitFor();
    const searches = calls.filter((request) => new URL(request.url()).searchParams.has('keyword'));
    expect(searches.length).toBeLessThanOrEqual(2);

    await input.press('Enter');
    await page.waitForURL(new RegExp(`/searchDetail/${encodeURIComponent(keyword)}$`));
    await page.locator('.poster-grid .tile').first().waitFor();

    await page.goto('/search');
    const history = page.getByTestId('search-history');
    await history.getByRole('button', { name: keyword }).waitFor();
    await page.getByRole('button', { name: 'Clear search history' }).click();
    await history.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByPlaceholder('What you like...').waitFor();
    expect(await page.getByTestId('search-history').count()).toBe(0);

    await page.goto('/');
    await page.locator('.header__search').click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.close();
  });

  it('registers and logs in with the spec prompts', async () => {
    const context = await newContext();
    const page = await newPage(context);
    const email = `e2e-${Date.now()}@example.com`;
    const password = 'correct-horse-9';
    await page.goto('/register');
    await page.getByRole('button', { name: 'Sign up' }).click();
    for (const prompt of ['Please enter your email', 'Please enter your password', 'Please repeat your password']) {
      await page.getByText(prompt, { exact: true }).waitFor();
    }
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Repeat password').fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(/\/my$/);
    await page.locator('.profile__name', { hasText: email }).waitFor();

    await page.getByRole('button', { name: 'Log out' }).first().click();
    await page.getByText('You are logged out').waitFor();

    await page.goto('/login');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Please enter your email', { exact: true }).waitFor();
    await page.getByText('Please enter your password', { exact: true }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('wrong-password-1');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('.toast--error').waitFor();
    expect(page.url()).toMatch(/\/login$/);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/my$/);
    await page.locator('.profile__name', { hasText: email }).waitFor();

    const again = await newPage(await newContext());
    await again.goto('/register');
    await again.getByLabel('Email').fill(email);
    await again.getByLabel('Password', { exact: true }).fill(password);
    await again.getByLabel('Repeat password').fill(password);
    await again.getByRole('button', { name: 'Sign up' }).click();
    await again.getByText('This email is already registered').waitFor();
    await again.context().close();
    await context.close();
  });

  it('sends the home page and a series page server-rendered, which React hydrates in place: the picture first, no layout shift', async () => {
    const context = await newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await newPage(context);
    // Kept before the site's scripts run: the elements the parser made from the served markup, and
    // every layout shift from the first paint on, with what moved.
    await page.addInitScript(() => {
      const state = window as unknown as { served: Element[]; shifts: Array<{ value: number; moved: string[] }> };
      state.served = [];
      state.shifts = [];
      new PerformanceObserver((list) => {
        // As CLS counts them: not the ones a tap caused (the tab chosen below).
        for (const entry of list.getEntries() as unknown as Array<{ value: number; hadRecentInput: boolean; sources: Array<{ node?: Node; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }> }>) {
          if (entry.hadRecentInput) continue;
          const moved = entry.sources.map(({ node, previousRect: from, currentRect: to }) => {
            const what = node instanceof Element ? `${node.localName}.${[...node.classList].join('.')}` : String(node?.nodeName);
            return `${what} ${from.x},${from.y} ${from.width}x${from.height} -> ${to.x},${to.y} ${to.width}x${to.height}`;
          });
          state.shifts.push({ value: entry.value, moved });
        }
      }).observe({ type: 'layout-shift', buffered: true });
      // The parser is done and no deferred script (the app is a module script) has run yet.
      document.addEventListener('readystatechange', () => {
        if (document.readyState !== 'interactive') return;
        for (const selector of ['.carousel__backdrop', '.player__video', 'h1']) {
          const element = document.querySelector(selector);
          if (element) state.served.push(element);
        }
      });
    });
    const servedElement = (selector: string) =>
      page.evaluate((selector) => (window as unknown as { served: Element[] }).served.includes(document.querySelector(selector)!), selector);

    const scripts = new Set<string>();
    page.on('response', (response) => {
      // The page's scripts; not hls.js's worker, whose work is off the main thread anyway.
      if (/\/assets\/[^/]+\.js$/.test(new URL(response.url()).pathname) && !response.url().includes('.worker-')) scripts.add(response.url());
    });
    // What loaded first: the picture the page preloads, or the app (src/boot.ts waits for the picture).
    const order: string[] = [];
    page.on('requestfinished', (request) => {
      if (request.resourceType() === 'image' && new URL(request.url()).pathname.startsWith('/media/public/covers/')) order.push('picture');
    });
    page.on('request', (request) => {
      if (/\/assets\/main-[^/]+\.js$/.test(new URL(request.url()).pathname)) order.push('app');
    });
    const ownUser = page.waitForResponse((answer) => new URL(answer.url()).pathname === '/api/user');
    const home = await page.goto('/');
    const served = await home!.text();
    expect(served).toContain('<div id="app" data-server-rendered>');
    expect(served).toContain('class="carousel__backdrop"');
    // Hydrated, the viewer's own data in, the rows below the first screen added: nothing has moved.
    await hydrated(page);
    await ownUser;
    await page.locator('.row').nth(1).waitFor();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 500))));
    const shifts = await page.evaluate(() => (window as unknown as { shifts: Array<{ value: number; moved: string[] }> }).shifts);
    expect(shifts.reduce((sum, shift) => sum + shift.value, 0), `layout shifts: ${JSON.stringify(shifts)}`).toBeLessThan(0.01);
    expect(await servedElement('.carousel__backdrop')).toBe(true);
    expect(order[0]).toBe('picture');
    expect(order).toContain('app');
    // The app runs: a tab chosen shows its panel (a shift a tap causes is not the page's; and on a
    // busy machine it may come later than the half second a browser forgives after a tap).
    await page.getByRole('tab', { name: 'Browse' }).click();
    await page.getByRole('tab', { name: 'Browse', selected: true }).waitFor();

    // React hydrates there too: it asks for the episode to play, which the served page could not hold.
    const episodeCall = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/video/episode');
    const series = await page.goto(`/videos/${encodeURIComponent(catalog.playable.id)}`);
    expect(await series!.text()).toContain('<div id="app" data-server-rendered>');
    await episodeCall;
    expect(await servedElement('.player__video')).toBe(true);
    expect(await servedElement('h1')).toBe(true);
    // Every script the two pages ran asks Chrome to compile it as it streams in (vite.config.ts).
    expect(scripts.size).toBeGreaterThan(3);
    for (const script of scripts) expect([script, (await (await page.request.get(script)).text()).slice(0, 29)]).toEqual([script, '//# allFunctionsCalledOnLoad\n']);
    await page.close();
    await context.close();
  });

  describe('hydration: every server-rendered page, for every kind of visitor, without a mismatch', () => {
    /** Registers a member through the API; their token, as the browser would have stored it. */
    async function memberToken(): Promise<string> {
      const guest = await fetch(`${site.baseUrl}/api/user`);
      const response = await fetch(`${site.baseUrl}/api/user/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user-token': guest.headers.get('x-user-token')! },
        body: JSON.stringify({ email: `hydration-${Date.now()}@example.com`, password: 'correct-horse-9', confirmPassword: 'correct-horse-9' }),
      });
      expect((await response.json()).code).toBe(200);
      return response.headers.get('x-user-token')!;
    }

    const visitors: Array<{ who: string; prepare: (context: BrowserContext) => Promise<unknown>; then: (page: Page) => Promise<unknown> }> = [
      { who: 'a new visitor', prepare: async () => undefined, then: async () => undefined },
      {
        who: 'a returning member',
        prepare: async (context) => context.addInitScript((token) => localStorage.setItem('cliffhanger.userToken', token), await memberToken()),
        // Their own header comes right after hydration.
        then: (page) => page.locator('.header__account', { hasNotText: 'Sign in' }).first().waitFor(),
      },
      {
        who: 'a viewer who chose another language than their browser’s',
        prepare: (context) => context.addInitScript(() => localStorage.setItem('cliffhanger.language', 'es')),
        // Rendered in English (the browser's), hydrated in English, then in Spanish.
        then: (page) => page.waitForFunction(() => document.documentElement.lang === 'es'),
      },
    ];

    for (const { who, prepare, then } of visitors) {
      it(`hydrates the home page and a series page of ${who}, and client navigation keeps React's root`, async () => {
        const context = await newContext();
        await prepare(context);
        for (const path of ['/', `/videos/${encodeURIComponent(catalog.playable.id)}`]) {
          const page = await newPage(context);
          // React's recoverable errors are logged by the app (lib/monitoring.ts) and counted by the
          // analytics pixel; in production React logs no other hydration warning.
          const problems: string[] = [];
          page.on('console', (message) => {
            if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
          });
          page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
          const hits = staticsHits(page);
          const ownUser = page.waitForResponse((answer) => new URL(answer.url()).pathname === '/api/user');
          const response = await page.goto(path);
          expect(await response!.text()).toContain('<div id="app" data-server-rendered>');
          await hydrated(page);
          // The viewer's own data, let in once the page is hydrated, and what it changes.
          await ownUser;
          await then(page);
          await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 500))));
          expect([path, problems]).toEqual([path, []]);
          expect(hits.filter((hit) => hit.get('event') === 'js_error')).toEqual([]);
          if (path === '/') {
            // Client navigation: the same root renders the next page.
            const root = await page.evaluateHandle(() => document.getElementById('app'));
            await page.locator('.row .tile').first().click();
            await page.waitForURL(/\/videos\//);
            await hydrated(page);
            expect(await page.evaluate((app) => app === document.getElementById('app') && Object.keys(app!).some((key) => key.startsWith('__reactContainer$')), root)).toBe(true);
          }
          await page.close();
        }
        await context.close();
      });
    }
  });

  it('switches between the five languages and remembers the choice', async () => {
    const page = await newPage(viewer);
    await page.goto('/');
    const chooser = page.getByTestId('language-chooser');
    await chooser.waitFor();
    expect(await chooser.locator('option').allTextContents()).toEqual(['English', 'Español', 'Français', 'Deutsch', 'Português']);
    const homes: Array<[string, string, string]> = [
      ['es', 'Inicio', 'es'],
      ['fy', 'Accueil', 'fr'],
      ['dy', 'Startseite', 'de'],
      ['pt', 'Início', 'pt'],
      ['en', 'Home', 'en'],
    ];
    try {
      for (const [code, home, htmlLang] of homes) {
        await chooser.selectOption(code);
        await page.locator('.header__nav .header__link', { hasText: home }).first().waitFor();
        expect(await page.evaluate(() => document.documentElement.lang)).toBe(htmlLang);
      }
      await chooser.selectOption('dy');
      await page.reload();
      await page.locator('.header__nav .header__link', { hasText: 'Startseite' }).first().waitFor();
    } finally {
      // The choice is remembered for the whole context: the tests after this one read English.
      await page.evaluate(() => localStorage.setItem('cliffhanger.language', 'en'));
      await page.close();
    }
  });

  it('shows the not-found page for any other path', async () => {
    const page = await newPage(viewer);
    const response = await page.goto('/no/such/page');
    expect(response?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Go to home' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.close();
  });

  it('on a phone, has a bottom tab bar and a swipe up on the player opens the next episode', async () => {
    const second = await waitForFreeEpisode(site, catalog.playable.id, 2, SECOND_EPISODE_TIMEOUT_MS);
    const phone = await newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await newPage(phone);
    await page.goto(`/videos/${encodeURIComponent(catalog.playable.id)}`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My List' }).waitFor();
    const player = page.getByRole('region', { name: 'Video player' });
    await player.waitFor();
    await player.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const at = (y: number) => new Touch({ identifier: 1, target: element, clientX: box.left + box.width / 2, clientY: y });
      const start = at(box.top + box.height * 0.7);
      const end = at(box.top + box.height * 0.2);
      element.dispatchEvent(new TouchEvent('touchstart', { bubbles: true, cancelable: true, touches: [start], changedTouches: [start] }));
      element.dispatchEvent(new TouchEvent('touchend', { bubbles: true, cancelable: true, touches: [], changedTouches: [end] }));
    });
    await page.waitForURL((url) => url.searchParams.get('ep') === second.id);
    await phone.close();
  }, SECOND_EPISODE_TIMEOUT_MS + 120_000);

  it('moves between episodes from the keyboard', async () => {
    const second = await waitForFreeEpisode(site, catalog.playable.id, 2, SECOND_EPISODE_TIMEOUT_MS);
    const page = await newPage(viewer);
    // The page arrives server-rendered, its player among it: keys reach the app once React has hydrated it
    // and asked for the episode.
    const episodeCall = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/video/episode');
    await page.goto(`/videos/${encodeURIComponent(catalog.playable.id)}?ep=${encodeURIComponent(catalog.playable.firstEpisodeId)}`);
    await episodeCall;
    await page.getByRole('region', { name: 'Video player' }).focus();
    await page.keyboard.press('n');
    await page.waitForURL((url) => url.searchParams.get('ep') === second.id);
    // The address changes a moment before the page shows the new episode; wait for the page.
    await page.locator('[data-testid="episode-2"][aria-current="true"]').waitFor();
    await page.keyboard.press('p');
    await page.waitForURL((url) => url.searchParams.get('ep') === catalog.playable.firstEpisodeId);
    await page.close();
  }, SECOND_EPISODE_TIMEOUT_MS + 120_000);

  it('opens the unlock sheet for a locked episode', async () => {
    const withLock = await waitForLockedEpisode(site, catalog.series, LOCKED_EPISODE_TIMEOUT_MS);
    const page = await newPage(viewer);
    await page.goto(`/videos/${encodeURIComponent(withLock.id)}`);
    await page.getByTestId(`episode-${withLock.locked.number}`).click();
    const sheet = page.getByRole('dialog');
    await sheet.getByRole('heading', { name: `Unlock episode ${withLock.locked.number}` }).waitFor();
    await sheet.getByRole('link', { name: 'Subscribe to unlock all' }).waitFor();
    await sheet.getByRole('button', { name: 'Close' }).click();
    await sheet.waitFor({ state: 'detached' });
    await page.getByText('Locked', { exact: true }).waitFor();
    await page.close();
  }, LOCKED_EPISODE_TIMEOUT_MS + 120_000);

  describe('analytics', () => {
    const playablePage = () => `/videos/${encodeURIComponent(catalog.playable.id)}`;
    const goHome = async (page: Page) => {
      await page.locator('.header__nav .header__link', { hasText: 'Home' }).first().click();
      await page.waitForURL((url) => url.pathname === '/');
    };
    /** Every vendor's stand-in has recorded `count` page views, each in its own words. */
    const pageViewsRecorded = (count: number) => (recorded: PixelCalls) =>
      callsNamed(recorded.facebook, 'track', 'PageView').length === count &&
      callsNamed(recorded.google, 'event', 'page_view').length === count &&
      callsNamed(recorded.tiktok, 'page').length === count &&
      callsNamed(recorded.bigo, 'event', 'page_view').length === count;
    const playing = (page: Page, seconds: number) =>
      page.waitForFunction((past) => (document.querySelector('video')?.currentTime ?? 0) > past, seconds, { timeout: 90_000 });

    it('loads each configured ad pixel once and reports page views and the content viewed to each', async () => {
      const context = await newContext();
      const page = await newPage(context);
      const response = await page.goto(playablePage());
      for (const script of Object.values(VENDOR_SCRIPTS)) expect(response?.headers()['content-security-policy']).toContain(new URL(script).origin);
      await playing(page, 0.5);
      await goHome(page);
      const episodeId = catalog.playable.firstEpisodeId;

      const calls = await waitForPixelCalls(page, pageViewsRecorded(2));
      expect([...thirdPartyRequests.get(context)!].sort()).toEqual(Object.values(VENDOR_SCRIPTS).sort());

      expect(calls.facebook!.slice(0, 2)).toEqual([['init', PIXEL_IDS.facebook], ['track', 'PageView']]);
      expect(callsNamed(calls.facebook, 'track', 'ViewContent')).toEqual([
        ['track', 'ViewContent', { content_ids: [episodeId], content_type: 'product', video_id: catalog.playable.id, value: 0, currency: 'USD' }],
      ]);
      expect(callsNamed(calls.google, 'config')).toEqual([['config', PIXEL_IDS.google, { send_page_view: false }]]);
      expect(callsNamed(calls.google, 'event', 'page_view').map((call) => (call[2] as { page_path: string }).page_path)).toEqual([playablePage(), '/']);
      expect(callsNamed(calls.google, 'event', 'view_item')).toEqual([
        ['event', 'view_item', { value: 0, currency: 'USD', items: [{ item_id: episodeId, item_group_id: catalog.playable.id }] }],
      ]);
      expect(calls.tiktok![0]).toEqual(['load', PIXEL_IDS.tiktok, true]);
      expect(callsNamed(calls.tiktok, 'track', 'ViewContent').map((call) => call[2])).toEqual([
        { contents: [{ content_id: episodeId, content_type: 'product' }], video_id: catalog.playable.id, value: 0, currency: 'USD' },
      ]);
      expect(calls.bigo).toEqual([['init', PIXEL_IDS.bigo], ['event', 'page_view'], ['event', 'ec_detail_view'], ['event', 'page_view']]);
      await context.close();
    });

    it('opening a password-reset link leaves no token in the address bar and sends none to the ad pixels or to our own', async () => {
      const context = await newContext();
      const page = await newPage(context);
      const token = randomBytes(32).toString('base64url');
      // Every request after the page's own: its address and headers (a Referer, our pixel's x- headers).
      const carried: string[] = [];
      page.on('request', (request) => {
        if (request.resourceType() !== 'document') carried.push(`${request.method()} ${request.url()} ${JSON.stringify(request.headers())}`);
      });
      const hits = staticsHits(page);
      site.keepSecret(token);
      await page.goto(`/retrievePassword?reset=${token}`);
      await page.getByLabel('New password').waitFor();
      expect(page.url()).toBe(`${site.baseUrl}/retrievePassword`);

      // The page view reached every vendor's stand-in and our own pixel, with the address as it now is.
      const calls = await waitForPixelCalls(page, pageViewsRecorded(1));
      expect(callsNamed(calls.google, 'event', 'page_view')[0]![2]).toEqual({ page_path: '/retrievePassword', page_location: `${site.baseUrl}/retrievePassword` });
      await eventually(async () => (hits.some(pageHit) ? true : undefined), { timeoutMs: 10_000, what: 'the page view of our own pixel', intervalMs: 200, stopOn: SiteExited });
      // What a vendor's own script reads for itself.
      expect(await page.evaluate(() => [location.href, document.URL, document.referrer, JSON.stringify(history.state)].join(' '))).not.toContain(token);

      // The page kept it in memory: the reset call carries it, in its body.
      const resetCall = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/user/password/reset');
      await page.getByLabel('New password').fill('correct-horse-9');
      await page.getByLabel('Repeat password').fill('correct-horse-9');
      await page.getByRole('button', { name: 'Save new password' }).click();
      expect(JSON.parse((await resetCall).postData() ?? '{}')).toMatchObject({ token });
      await page.getByRole('alert').getByText('This reset link is invalid or has expired. Ask for a new one.').waitFor();

      expect(JSON.stringify(await pixelCalls(page))).not.toContain(token);
      expect(carried.filter((request) => request.includes(token))).toEqual([]);
      await context.close();
    });

    it('keeps working when the ad pixels’ scripts cannot load (a 404, an ad blocker, no network)', async () => {
      const context = await newContext({ vendors: 'failing' });
      const page = await newPage(context);
      const errorsBefore = pageErrors.length;
      const hits = staticsHits(page);
      await page.goto(playablePage());
      await playing(page, 0.5);
      await goHome(page);
      await page.getByRole('heading', { name: 'Featured Videos' }).waitFor();

      expect([...thirdPartyRequests.get(context)!].sort()).toEqual(Object.values(VENDOR_SCRIPTS).sort());
      await eventually(async () => (hits.filter(pageHit).length === 2 ? true : undefined), { timeoutMs: 10_000, what: 'the page views of our own pixel', intervalMs: 200, stopOn: SiteExited });
      // The snippets' stubs stay callable: a late call queues, it does not throw.
      expect(await page.evaluate(() => typeof window.fbq === 'function' && typeof window.gtag === 'function' && typeof window.ttq?.track === 'function' && typeof window.bge === 'function')).toBe(true);
      expect(pageErrors.slice(errorsBefore)).toEqual([]);
      await context.close();
    });

    it('loads no ad pixel and asks nothing of any vendor when none is configured', async () => {
      const bare = await startSite({ own: true, env: { DEMO: '0', ...NO_PIXEL_ENV } });
      try {
        const context = await newContext({ baseUrl: bare.baseUrl });
        const page = await newPage(context);
        const hits = staticsHits(page);
        const response = await page.goto('/');
        expect(response?.headers()['content-security-policy']).toContain("script-src 'self';");
        await page.getByRole('navigation', { name: 'Site links' }).waitFor();
        // The home page's view is counted once its app runs (after the server-rendered page has painted).
        await eventually(async () => (hits.some(pageHit) ? true : undefined), { timeoutMs: 10_000, what: 'the home page view of our own pixel', intervalMs: 200, stopOn: SiteExited });
        await page.locator('.header__coins').click();
        await page.waitForURL((url) => url.pathname === '/shopping');
        await eventually(async () => (hits.filter(pageHit).length === 2 ? true : undefined), { timeoutMs: 10_000, what: 'the page views of our own pixel', intervalMs: 200, stopOn: SiteExited });

        expect(await page.evaluate(() => [typeof window.fbq, typeof window.gtag, typeof window.ttq, typeof window.bge])).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
        expect(await page.locator('script[src^="http"]').count()).toBe(0);
        expect(thirdPartyRequests.get(context)).toEqual([]);
        await context.close();
      } finally {
        await bare.stop();
      }
    });

    it('reports one playback hit per viewing, with startup, rebuffering, watch time and rung, which the analysts’ report counts', async () => {
      if (!site.adminToken) throw new Error('reading the playback report needs E2E_ADMIN_TOKEN for a site already running');
      const today = new Date().toISOString().slice(0, 10);
      /** The episode's row of the analysts' playback report (the analytics service reads the hits' names). */
      const reported = async () => {
        const response = await fetch(`${site.baseUrl}/api/admin/analytics/playback?from=${today}&to=${today}&by=episode`, {
          headers: { authorization: `Bearer ${site.adminToken}` },
        });
        const rows = ((await response.json()) as { data: Array<{ key: string; plays: number; startupMsP50: number | null; rebufferRatio: number | null; errors: number }> }).data;
        return rows.find((entry) => entry.key === catalog.playable.firstEpisodeId) ?? { plays: 0, startupMsP50: null, rebufferRatio: null, errors: 0 };
      };
      const playsBefore = (await reported()).plays;
      const context = await newContext();
      const page = await newPage(context);
      const hits = staticsHits(page);
      const playbackHits = () => hits.filter((hit) => hit.get('event') === 'playback').map((hit) => Object.fromEntries(hit));
      await page.goto(playablePage());
      await playing(page, 1.5);
      expect(playbackHits()).toEqual([]);

      // Leaving the video page inside the site ends the viewing: one hit.
      await goHome(page);
      await eventually(async () => (playbackHits().length > 0 ? true : undefined), { timeoutMs: 10_000, what: 'the playback hit', intervalMs: 200, stopOn: SiteExited });
      const [hit] = playbackHits();
      expect(hit).toMatchObject({ event: 'playback', videoId: catalog.playable.id, episodeId: catalog.playable.firstEpisodeId });
      expect(Number(hit!.startupMs)).toBeGreaterThanOrEqual(0);
      expect(Number(hit!.startupMs)).toBeLessThan(60_000);
      expect(Number(hit!.watchMs)).toBeGreaterThan(1_000);
      expect(Number.isInteger(Number(hit!.rebufferCount))).toBe(true);
      expect(Number(hit!.rebufferMs)).toBeGreaterThanOrEqual(0);
      expect(hit!.rung).toMatch(/^\d+p$/);
      expect(hit!.error).toBeUndefined();
      await eventually(async () => ((await reported()).plays === playsBefore + 1 ? true : undefined), { timeoutMs: 30_000, what: 'the viewing in the playback report', intervalMs: 500, stopOn: SiteExited });

      // Leaving the site (pagehide) ends one too, sent as the page goes away: the browser no longer
      // shows that page's requests, so the report says whether it arrived.
      await page.goto(playablePage());
      await playing(page, 1);
      await page.goto('/shopping');
      const row = await eventually(async () => {
        const current = await reported();
        return current.plays === playsBefore + 2 ? current : undefined;
      }, { timeoutMs: 30_000, what: 'the viewing left by pagehide in the playback report', intervalMs: 500, stopOn: SiteExited });
      expect(playbackHits()).toHaveLength(1);
      expect(row.startupMsP50).not.toBeNull();
      expect(row.rebufferRatio).not.toBeNull();
      await context.close();
    }, 240_000);
  });

  describe('money', () => {
    let paid: PaidSeries;
    beforeAll(async () => {
      paid = await uploadPaidSeries(site, 600_000);
    }, 660_000);

    const nextYear = String((new Date().getFullYear() + 1) % 100).padStart(2, '0');

    /** Fills the spec's card form and pays: the card goes to the provider's tokenizer, never to /api. */
    async function payByCard(page: Page, cardNumber: string) {
      site.keepSecret(cardNumber);
      const apiBodies: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/api/')) apiBodies.push(request.postData() ?? '');
      });
      await page.getByLabel('Card number').fill(cardNumber);
      await page.getByLabel('Expiry (MM/YY)').fill(`12/${nextYear}`);
      await page.getByLabel('CVV').fill('123');
      await page.getByLabel('Email').fill(`buyer${Date.now()}@example.com`);
      await page.getByLabel('First name').fill('Ada');
      await page.getByLabel('Last name').fill('Buyer');
      await page.getByRole('button', { name: /^Pay \$/ }).click();
      await page.waitForURL(/\/order\/result/);
      expect(apiBodies.some((body) => body.includes(cardNumber))).toBe(false);
    }

    /** Opens an episode of the paid series: it plays, or its unlock sheet opens. */
    async function openEpisode(page: Page, number: number) {
      const episode = paid.episodes.find((entry) => entry.number === number)!;
      await page.goto(`/videos/${encodeURIComponent(paid.id)}?ep=${encodeURIComponent(episode.id)}`);
    }

    /** The buy button of the regular coin pack of exactly this many coins (not the first-purchase offer). */
    const coinPack = (page: Page, coins: string) =>
      page.locator('.plans--coins .plan:not(.plan--offer)').filter({ has: page.locator('.plan__coins', { hasText: new RegExp(`^${coins}$`) }) }).getByRole('button');

    const playing = (page: Page) => page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 0.5, undefined, { timeout: 90_000 });

    it('a new viewer buys coins with 4242..., unlocks a locked episode and watches it', async () => {
      const context = await newContext();
      const page = await newPage(context);
      const hits = staticsHits(page);
      const hitsOf = (event: string) => hits.filter((hit) => hit.get('event') === event).map((hit) => Object.fromEntries(hit));
      await page.goto('/shopping');
      await coinPack(page, '100 coins').click();
      await page.waitForURL(/\/order\/easy/);
      await payByCard(page, '4242424242424242');
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      await page.getByText('100 coins were added').waitFor();

      // The purchase, with its value, reaches every ad pixel under the event id the server's
      // Conversions API uses for the same order, and our own pixel.
      const orderId = new URL(page.url()).searchParams.get('orderId')!;
      const order = await page.evaluate(async (id) => {
        const response = await fetch('/api/payment?page=1&size=20', { headers: { 'x-user-token': localStorage.getItem('cliffhanger.userToken') ?? '' } });
        const { data } = (await response.json()) as { data: { items: Array<{ id: string; planId: string; price: { amount: number; currency: string } }> } };
        return data.items.find((item) => item.id === id)!;
      }, orderId);
      const value = order.price.amount / 100;
      expect(value).toBeGreaterThan(0);
      const bought = await waitForPixelCalls(
        page,
        (calls) =>
          callsNamed(calls.facebook, 'track', 'Purchase').length > 0 &&
          callsNamed(calls.google, 'event', 'purchase').length > 0 &&
          callsNamed(calls.tiktok, 'track', 'CompletePayment').length > 0 &&
          callsNamed(calls.bigo, 'event', 'ec_purchase').length > 0,
      );
      expect(callsNamed(bought.facebook, 'track', 'Purchase')).toEqual([
        ['track', 'Purchase', { value, currency: 'USD', content_ids: [order.planId], content_type: 'product' }, { eventID: `order:${orderId}` }],
      ]);
      expect(callsNamed(bought.tiktok, 'track', 'CompletePayment')).toEqual([
        ['track', 'CompletePayment', { value, currency: 'USD', contents: [{ content_id: order.planId, content_type: 'product' }] }, { event_id: `order:${orderId}` }],
      ]);
      expect(callsNamed(bought.google, 'event', 'purchase')).toEqual([
        ['event', 'purchase', { transaction_id: orderId, value, currency: 'USD', items: [{ item_id: order.planId }] }],
      ]);
      expect(callsNamed(bought.bigo, 'event', 'ec_purchase')).toEqual([['event', 'ec_purchase', { value, currency: 'USD' }]]);
      await eventually(async () => (hitsOf('purchase').length > 0 ? true : undefined), { timeoutMs: 10_000, what: 'the purchase hit', intervalMs: 200, stopOn: SiteExited });

      // The result page shown again reports the purchase to no one.
      await page.reload();
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      await waitForPixelCalls(page, (calls) => callsNamed(calls.facebook, 'track', 'PageView').length > 0);
      await page.waitForTimeout(1_000);
      expect(callsNamed((await pixelCalls(page)).facebook, 'track', 'Purchase')).toEqual([]);
      expect(hitsOf('purchase')).toEqual([expect.objectContaining({ orderId, planId: order.planId, value: String(value), currency: 'USD', eventId: `order:${orderId}` })]);

      await openEpisode(page, 1);
      const sheet = page.getByRole('dialog');
      await sheet.getByRole('heading', { name: 'Unlock episode 1' }).waitFor();
      await sheet.getByRole('button', { name: 'Unlock for 60 coins' }).click();
      await sheet.waitFor({ state: 'detached' });
      const episodeId = paid.episodes.find((episode) => episode.number === 1)!.id;
      const unlocked = await waitForPixelCalls(page, (calls) => callsNamed(calls.facebook, 'trackCustom', 'UnlockEpisode').length > 0);
      expect(callsNamed(unlocked.facebook, 'trackCustom', 'UnlockEpisode')).toEqual([
        ['trackCustom', 'UnlockEpisode', { content_ids: [episodeId], video_id: paid.id, coins: 60, value: 0, currency: 'USD' }],
      ]);
      expect(hitsOf('unlock')).toEqual([expect.objectContaining({ videoId: paid.id, episodeId, coins: '60' })]);
      await playing(page);
      const user = await page.evaluate(async () => (await fetch('/api/user', { headers: { 'x-user-token': localStorage.getItem('cliffhanger.userToken') ?? '' } })).json());
      expect(user.data.coins).toBe(40);
      await context.close();
    }, 300_000);

    it('a VIP subscriber watches every episode, cancels, and keeps access until the renewal date', async () => {
      const context = await newContext();
      const page = await newPage(context);
      await page.goto('/shopping');
      await page.getByRole('button', { name: 'Subscribe: VIP monthly' }).click();
      await page.waitForURL(/\/order\/easy/);
      await payByCard(page, '4242424242424242');
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      await page.getByText(/VIP is active/).waitFor();

      for (const number of [1, 2]) {
        await openEpisode(page, number);
        await playing(page);
        expect(await page.getByRole('dialog').count()).toBe(0);
      }

      await page.goto('/shopping');
      await page.getByRole('button', { name: 'Cancel subscription' }).click();
      await page.getByRole('button', { name: 'Yes, cancel' }).click();
      await page.getByText(/You have (VIP )?access until/).first().waitFor();
      await openEpisode(page, 2);
      await playing(page);
      await context.close();
    }, 300_000);

    it('a declined card lands on the result page with the reason', async () => {
      const context = await newContext();
      const page = await newPage(context);
      await page.goto('/shopping');
      await coinPack(page, '500 coins').click();
      await payByCard(page, '4000000000000002');
      await page.getByRole('heading', { name: 'Payment failed' }).waitFor();
      await page.getByText(/declined/i).first().waitFor();
      await context.close();
    }, 120_000);

    it('a canceled PayPal flow lands on the result page as canceled', async () => {
      const context = await newContext();
      const page = await newPage(context);
      await page.goto('/shopping');
      await coinPack(page, '500 coins').click();
      await page.waitForURL(/\/order\/easy/);
      await page.getByRole('button', { name: 'Pay with PayPal' }).click();
      await page.getByRole('button', { name: 'Cancel and return' }).click();
      await page.waitForURL(/\/order\/result\?.*status=canceled/);
      await page.getByRole('heading', { name: 'Payment canceled' }).waitFor();
      await context.close();
    }, 120_000);
  });

  it('raised no uncaught page errors', () => {
    expect(pageErrors).toEqual([]);
  });

  it('wrote none of the secrets the run used to the site\'s logs: the admin token, viewers\' tokens, playback grants, a reset token, card numbers', () => {
    expect(site.output()).not.toBe('');
    expect(site.secretsInOutput()).toEqual([]);
  });
});
