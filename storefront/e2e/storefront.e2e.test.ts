import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadPaidSeries, waitForDemoCatalog, waitForFreeEpisode, waitForLockedEpisode, type DemoCatalog, type PaidSeries } from './catalog';
import { launchChromium, startSite, type RunningSite } from './harness';

let site: RunningSite;
let browser: Browser;
let catalog: DemoCatalog;
let viewer: BrowserContext;
const pageErrors: string[] = [];

// A fresh site transcodes the demo catalog episode 1 of every series first, then every episode 2, and
// so on: a second episode takes a few minutes more, a locked one (after the free ones) many more.
const SECOND_EPISODE_TIMEOUT_MS = 600_000;
const LOCKED_EPISODE_TIMEOUT_MS = 1_500_000;

beforeAll(async () => {
  site = await startSite();
  catalog = await waitForDemoCatalog(site);
  browser = await launchChromium();
  viewer = await newContext();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

async function newContext(viewport = { width: 1280, height: 860 }): Promise<BrowserContext> {
  return browser.newContext({ baseURL: site.baseUrl, viewport, locale: 'en-US' });
}

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
  return page;
}

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
    const calls = apiCalls(page);
    await page.goto('/?token=ref-e2e&fbclid=fb-e2e&ttclid=tt-e2e');
    await page.locator('.row .tile').first().waitFor();
    const userCall = calls.find((request) => new URL(request.url()).pathname === '/api/user');
    expect(userCall?.headers()['x-referrer-token']).toBe('ref-e2e');

    const before = calls.length;
    await page.locator('.row .tile').first().click();
    await page.waitForURL(/\/videos\//);
    await page.locator('.watch__title').waitFor();
    const later = calls.slice(before);
    const videoCall = later.find((request) => new URL(request.url()).pathname === '/api/video')!;
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
    expect(await page.evaluate(() => localStorage.getItem('cliffhanger.userId'))).toBeTruthy();
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
    await page.getByText(/^Resume episode 1 at 00:\d\d$/).waitFor();
    // The first moment the picture moves, it is already past the start: playback began at the resume point.
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 0, undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => document.querySelector('video')!.currentTime)).toBeGreaterThan(2);
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
    for (const [code, home, htmlLang] of homes) {
      await chooser.selectOption(code);
      await page.locator('.header__nav .header__link', { hasText: home }).first().waitFor();
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(htmlLang);
    }
    await chooser.selectOption('dy');
    await page.reload();
    await page.locator('.header__nav .header__link', { hasText: 'Startseite' }).first().waitFor();
    await page.getByTestId('language-chooser').selectOption('en');
    await page.close();
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
    const phone = await browser.newContext({ baseURL: site.baseUrl, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
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
    await page.goto(`/videos/${encodeURIComponent(catalog.playable.id)}?ep=${encodeURIComponent(catalog.playable.firstEpisodeId)}`);
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

  describe('money', () => {
    let paid: PaidSeries;
    beforeAll(async () => {
      paid = await uploadPaidSeries(site, 600_000);
    }, 660_000);

    const nextYear = String((new Date().getFullYear() + 1) % 100).padStart(2, '0');

    /** Fills the spec's card form and pays: the card goes to the provider's tokenizer, never to /api. */
    async function payByCard(page: Page, cardNumber: string) {
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
      await page.goto('/shopping');
      await coinPack(page, '100 coins').click();
      await page.waitForURL(/\/order\/easy/);
      await payByCard(page, '4242424242424242');
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      await page.getByText('100 coins were added').waitFor();

      await openEpisode(page, 1);
      const sheet = page.getByRole('dialog');
      await sheet.getByRole('heading', { name: 'Unlock episode 1' }).waitFor();
      await sheet.getByRole('button', { name: 'Unlock for 60 coins' }).click();
      await sheet.waitFor({ state: 'detached' });
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
});
