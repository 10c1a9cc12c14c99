// Captures the README screenshots (docs/screenshots) of home, a video page and search at phone and
// desktop sizes. Starts the real site unless BASE_URL points at a running one:
//   node_modules/.bin/tsx storefront/e2e/capture-screenshots.ts
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { waitForDemoCatalog } from './catalog';
import type { Page } from 'playwright-core';
import { launchChromium, REPO_ROOT, startSite } from './harness';

const SIZES = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
  { name: 'desktop', viewport: { width: 1440, height: 900 }, isMobile: false },
] as const;

const outDir = join(REPO_ROOT, 'docs', 'screenshots');
mkdirSync(outDir, { recursive: true });

// Toasts are transient; a screenshot shows the page once they have gone.
const toastsGone = (page: Page) => page.waitForFunction(() => !document.querySelector('.toast'), undefined, { timeout: 10_000 });

const site = process.env.BASE_URL ? null : await startSite();
const baseUrl = process.env.BASE_URL ?? site!.baseUrl;
const running = site ?? { baseUrl, assertRunning: () => undefined };
const browser = await launchChromium();
try {
  const catalog = await waitForDemoCatalog(running);
  const keyword = catalog.playable.title.split(/\s+/)[0]!.slice(0, 4);
  for (const size of SIZES) {
    const context = await browser.newContext({ baseURL: baseUrl, viewport: size.viewport, isMobile: size.isMobile, hasTouch: size.isMobile });
    const page = await context.newPage();

    await page.goto('/');
    await page.locator('.row .tile').first().waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('.lazy-image')].slice(0, 8).every((image) => image.getAttribute('data-state') !== 'loading'));
    await toastsGone(page);
    await page.screenshot({ path: join(outDir, `home-${size.name}.png`) });

    await page.goto(`/videos/${encodeURIComponent(catalog.playable.id)}`);
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 2, undefined, { timeout: 90_000 });
    await toastsGone(page);
    await page.mouse.move(size.viewport.width / 2, size.viewport.height / 3);
    await page.screenshot({ path: join(outDir, `video-${size.name}.png`) });

    await page.goto(`/search?q=${encodeURIComponent(keyword)}`);
    await page.locator('.poster-grid .tile').first().waitFor();
    await toastsGone(page);
    await page.screenshot({ path: join(outDir, `search-${size.name}.png`) });
    await context.close();
  }
  console.log(`screenshots written to ${outDir}`);
} finally {
  await browser.close();
  await site?.stop();
}
