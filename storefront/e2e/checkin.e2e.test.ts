import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startSite, type RunningSite } from './harness';

// The daily check-in as a new viewer meets it: no catalog is needed, so the site this suite starts
// runs without the demo one.
let site: RunningSite;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  site = await startSite({ env: { DEMO: '0' } });
  browser = await launchChromium();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

const textOf = async (locator: Locator) => (await locator.textContent())?.trim();

async function newViewer(options: { viewport: { width: number; height: number }; isMobile?: boolean; timezoneId: string }): Promise<{ context: BrowserContext; page: Page; timeZones: string[] }> {
  const context = await browser.newContext({ baseURL: site.baseUrl, locale: 'en-US', hasTouch: options.isMobile, ...options });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
  // The time zone each check-in call says the viewer is in.
  const timeZones: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/user/checkin') timeZones.push(request.headers()['x-time-zone'] ?? '');
  });
  return { context, page, timeZones };
}

describe('the daily check-in in the storefront', () => {
  it('a new viewer checks in on the coins page and sees the bonus in the header', async () => {
    const { context, page, timeZones } = await newViewer({ viewport: { width: 1280, height: 860 }, timezoneId: 'Pacific/Kiritimati' });
    await page.goto('/shopping');
    const card = page.getByTestId('checkin');
    const coins = page.locator('.header__coins');
    await expect.poll(() => textOf(coins)).toBe('0');
    await card.getByText('Check in every day: the bonus grows for 7 days in a row.').waitFor();
    await card.getByText('Today: +5 bonus coins').waitFor();

    await card.getByRole('button', { name: 'Check in +5' }).click();

    await expect.poll(() => textOf(coins)).toBe('5');
    await card.getByText('Checked in').waitFor();
    await card.getByText('1-day streak').waitFor();
    await card.getByText('Tomorrow: +10 bonus coins').waitFor();
    expect(await card.locator('.checkin__next').textContent()).toMatch(/^Next check-in in \d+ (hours?|minutes?)$/);
    expect(await card.locator('.checkin__day--done').count()).toBe(1);
    await page.getByText('+5 bonus coins added to your wallet').waitFor();
    expect(await page.locator('.shop__balance').textContent()).toContain('incl. 5 bonus coins');

    // The server keeps it: a reload shows the day claimed and the coins still there.
    await page.reload();
    await card.getByText('Checked in').waitFor();
    await expect.poll(() => textOf(coins)).toBe('5');
    expect(await card.getByRole('button').count()).toBe(0);
    expect(new Set(timeZones)).toEqual(new Set(['Pacific/Kiritimati']));
    await context.close();
  });

  it('on a phone, a guest checks in from the Me tab', async () => {
    const { context, page } = await newViewer({ viewport: { width: 390, height: 844 }, isMobile: true, timezoneId: 'America/Los_Angeles' });
    await page.goto('/');
    await page.locator('.tabbar').getByRole('link', { name: 'Me', exact: true }).click();
    const card = page.getByTestId('checkin');
    await card.getByRole('button', { name: 'Check in +5' }).click();
    await expect.poll(() => textOf(page.locator('.header__coins'))).toBe('5');
    await expect.poll(() => textOf(page.getByTestId('coins'))).toBe('5');
    await card.getByText('Checked in').waitFor();
    await context.close();
  });

  it('threw no errors in any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
