import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, SiteExited } from '@cliffhanger/platform/testing';
import { launchChromium, startSite, type RunningSite } from './harness';

// The vertical "For You" feed as a new viewer meets it, against the real site and its demo catalog:
// a fresh site transcodes episode 1 of every series first, so the feed fills within minutes.
let site: RunningSite;
let browser: Browser;
const pageErrors: string[] = [];
const SWIPES = 3;

beforeAll(async () => {
  site = await startSite();
  await eventually(async () => {
    site.assertRunning();
    const envelope = (await (await fetch(`${site.baseUrl}/api/video/feed?size=20`)).json()) as { code: number; data: { items: unknown[] } };
    return envelope.code === 200 && envelope.data.items.length > SWIPES ? true : undefined;
  }, { timeoutMs: 600_000, what: `a feed of ${SWIPES + 1} series`, intervalMs: 5000, stopOn: SiteExited });
  browser = await launchChromium();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

async function newViewer(device: { viewport: { width: number; height: number }; isMobile?: boolean; hasTouch?: boolean }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: site.baseUrl, locale: 'en-US', ...device });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
  // How far the picture has moved since its source last started over, per feed item shown: a
  // stale time of the item before cannot pass for the new one, which starts near 0.
  await page.addInitScript(() => {
    const progress: Record<string, { start: number; latest: number }> = {};
    Object.assign(window, { feedProgress: progress });
    document.addEventListener(
      'timeupdate',
      (event) => {
        const index = document.querySelector<HTMLElement>('[data-testid="feed"]')?.dataset.index;
        const time = (event.target as HTMLVideoElement).currentTime;
        if (index === undefined) return;
        const seen = progress[index];
        progress[index] = !seen || time < seen.latest - 0.5 ? { start: time, latest: time } : { start: seen.start, latest: time };
      },
      true,
    );
  });
  return { context, page };
}

/** Waits until the feed shows item `index` and its episode plays: from its start, a second and more of picture. */
async function playsItem(page: Page, index: number): Promise<string> {
  const feed = page.getByTestId('feed');
  await expect.poll(() => feed.getAttribute('data-index'), { timeout: 15_000 }).toBe(String(index));
  await page.waitForFunction(
    (at) => {
      const seen = (window as unknown as { feedProgress: Record<string, { start: number; latest: number }> }).feedProgress[at];
      return Boolean(seen && seen.start < 1 && seen.latest - seen.start >= 1);
    },
    String(index),
    { timeout: 60_000 },
  );
  const video = page.getByTestId('player-video');
  expect(await video.evaluate((element: HTMLVideoElement) => [element.paused, element.readyState >= 2, element.videoWidth > 0])).toEqual([false, true, true]);
  return (await feed.locator('.feed__title').textContent()) ?? '';
}

/** Forgets what item `index` played before, for a test that comes back to it. */
const forget = (page: Page, index: number) =>
  page.evaluate((at) => delete (window as unknown as { feedProgress: Record<string, unknown> }).feedProgress[at], String(index));

/** A finger's swipe up on the player, as the episode player's test does it. */
async function swipeUp(player: Locator): Promise<void> {
  await player.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const at = (y: number) => new Touch({ identifier: 1, target: element, clientX: box.left + box.width / 2, clientY: y });
    const start = at(box.top + box.height * 0.75);
    const end = at(box.top + box.height * 0.25);
    element.dispatchEvent(new TouchEvent('touchstart', { bubbles: true, cancelable: true, touches: [start], changedTouches: [start] }));
    element.dispatchEvent(new TouchEvent('touchend', { bubbles: true, cancelable: true, touches: [], changedTouches: [end] }));
  });
}

describe('the For You feed', () => {
  it('a new viewer opens /feed from the tab bar, swipes three times and each episode plays', async () => {
    const { context, page } = await newViewer({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.goto('/');
    await page.locator('.tabbar').getByRole('link', { name: 'For You', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/feed');
    const player = page.getByRole('region', { name: 'Video player' });

    const titles = [await playsItem(page, 0)];
    for (let swipe = 1; swipe <= SWIPES; swipe++) {
      await swipeUp(player);
      titles.push(await playsItem(page, swipe));
    }
    // Four different series, each on an episode the viewer may play.
    expect(new Set(titles).size).toBe(SWIPES + 1);
    // A swipe down goes back.
    await forget(page, SWIPES - 1);
    await player.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const at = (y: number) => new Touch({ identifier: 1, target: element, clientX: box.left + box.width / 2, clientY: y });
      element.dispatchEvent(new TouchEvent('touchstart', { bubbles: true, cancelable: true, touches: [at(box.top + 100)], changedTouches: [at(box.top + 100)] }));
      element.dispatchEvent(new TouchEvent('touchend', { bubbles: true, cancelable: true, touches: [], changedTouches: [at(box.top + 400)] }));
    });
    expect(await playsItem(page, SWIPES - 1)).toBe(titles[SWIPES - 1]);

    // What they watched (a few seconds of it: a series swiped past is not watched) is theirs to
    // continue on the home page, kept from their history's events.
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 4, undefined, { timeout: 30_000 });
    await page.locator('.tabbar').getByRole('link', { name: 'Home', exact: true }).click();
    await eventually(async () => {
      if (await page.getByRole('heading', { name: 'Continue watching' }).count()) return true;
      await page.reload();
      return undefined;
    }, { timeoutMs: 30_000, what: 'the "Continue watching" row', intervalMs: 2000, stopOn: SiteExited });
    const row = page.locator('section.row', { has: page.getByRole('heading', { name: 'Continue watching' }) });
    const continued = await row.locator('.tile').allTextContents();
    expect(continued.length).toBeGreaterThan(0);
    expect(continued.some((text) => text.includes(titles[SWIPES - 1]!))).toBe(true);
    await context.close();
  });

  it('on a desktop, the header links to the feed and the wheel and arrow keys move through it', async () => {
    const { context, page } = await newViewer({ viewport: { width: 1440, height: 900 } });
    await page.goto('/');
    await page.locator('.header').getByRole('link', { name: 'For You', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/feed');
    const first = await playsItem(page, 0);
    await page.mouse.move(720, 450);
    await page.mouse.wheel(0, 240);
    const second = await playsItem(page, 1);
    await page.keyboard.press('ArrowDown');
    await playsItem(page, 2);
    await forget(page, 1);
    await page.keyboard.press('ArrowUp');
    expect(await playsItem(page, 1)).toBe(second);
    await forget(page, 0);
    await page.getByRole('button', { name: 'Previous series' }).click();
    expect(await playsItem(page, 0)).toBe(first);
    await context.close();
  });

  it('threw no errors in any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
