import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, SiteExited } from '@cliffhanger/platform/testing';
import { launchChromium, startSite, type RunningSite } from './harness';
import { PIXEL_ENV, routeThirdParties } from './pixels';

// Visits, landings and page views as the analyst's summary counts them (docs/analytics.md), from a
// real browser: a campaign link and three more pages are one visit; a tab opened after the visit's
// idle time lands again.
let site: RunningSite;
let browser: Browser;

beforeAll(async () => {
  // The ad pixels configured, answered by stand-ins (e2e/pixels.ts) as in storefront.e2e.test.ts.
  site = await startSite({ env: { DEMO: '0', ...PIXEL_ENV } });
  browser = await launchChromium();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

interface SummaryRow {
  key: string;
  visits: number;
  landings: number;
  pageViews: number;
}

const dayOf = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** The summary's row of a campaign (last touch), as the admin API answers it to the site's admin token. */
async function campaignRow(campaign: string): Promise<SummaryRow | undefined> {
  if (!site.adminToken) throw new Error('the summary needs the admin API: set E2E_ADMIN_TOKEN for a site already running');
  // A day either side: the browser's hits and the check may fall on both sides of midnight UTC.
  const response = await fetch(`${site.baseUrl}/api/admin/analytics/summary?from=${dayOf(-1)}&to=${dayOf(1)}&by=campaign`, {
    headers: { authorization: `Bearer ${site.adminToken}` },
  });
  if (response.status !== 200) throw new Error(`summary answered ${response.status}`);
  const body = (await response.json()) as { data: SummaryRow[] };
  return body.data.find((row) => row.key === campaign);
}

const counts = (row: SummaryRow | undefined) => ({ visits: row?.visits ?? 0, landings: row?.landings ?? 0, pageViews: row?.pageViews ?? 0 });

/** Polls the summary until the campaign's counts are `expected` (the consumer aggregates a moment after the hits). */
async function campaignCounts(campaign: string, expected: ReturnType<typeof counts>): Promise<ReturnType<typeof counts>> {
  let last = counts(undefined);
  try {
    return await eventually(async () => {
      site.assertRunning();
      last = counts(await campaignRow(campaign));
      return JSON.stringify(last) === JSON.stringify(expected) ? last : undefined;
    }, { timeoutMs: 60_000, what: `the summary under ${campaign} to reach ${JSON.stringify(expected)}`, intervalMs: 1000, stopOn: SiteExited });
  } catch {
    return last;
  }
}

/** Opens `path` and waits for the page's own pixel hit (`landing` or `page_view`) to be answered. */
async function openPage(page: Page, path: string): Promise<URLSearchParams> {
  const hit = page.waitForResponse((response) => {
    const url = new URL(response.url());
    return url.pathname === '/api/statics.png' && ['landing', 'page_view'].includes(url.searchParams.get('event') ?? '');
  });
  await page.goto(path);
  return new URL((await hit).url()).searchParams;
}

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: site.baseUrl, viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  await routeThirdParties(context, new URL(site.baseUrl).origin, 'stand-ins');
  return context;
}

describe('landings in the analyst summary', () => {
  it('counts a campaign link and three more pages as 1 visit, 1 landing and 4 page views; a tab after the idle time lands again', async () => {
    const campaign = 'autumn';
    // A site already running (E2E_BASE_URL) may have counted the campaign before: the test counts from there.
    const before = counts(await campaignRow(campaign));
    const context = await newContext();
    const page = await context.newPage();

    const landing = await openPage(page, '/?utm_source=news&utm_medium=email&utm_campaign=autumn');
    expect(landing.get('event')).toBe('landing');
    expect([landing.get('utm_source'), landing.get('utm_medium'), landing.get('utm_campaign')]).toEqual(['news', 'email', 'autumn']);
    const visit = landing.get('visit');
    expect(visit).toBeTruthy();
    for (const path of ['/search', '/shopping', '/login']) {
      const hit = await openPage(page, path);
      expect([hit.get('event'), hit.get('visit'), hit.get('path')]).toEqual(['page_view', visit, path]);
    }
    const oneVisit = { visits: before.visits + 1, landings: before.landings + 1, pageViews: before.pageViews + 4 };
    expect(await campaignCounts(campaign, oneVisit)).toEqual(oneVisit);

    // The visit's last hit 31 minutes ago (its idle time is 30): a second tab starts a new visit.
    await page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('cliffhanger.visit') ?? '{}') as { lastPageAt: number };
      localStorage.setItem('cliffhanger.visit', JSON.stringify({ ...stored, lastPageAt: stored.lastPageAt - 31 * 60_000 }));
    });
    const second = await context.newPage();
    const again = await openPage(second, '/');
    expect(again.get('event')).toBe('landing');
    expect(again.get('utm_campaign')).toBe('autumn');
    expect(again.get('visit')).not.toBe(visit);
    const twoVisits = { visits: before.visits + 2, landings: before.landings + 2, pageViews: before.pageViews + 5 };
    expect(await campaignCounts(campaign, twoVisits)).toEqual(twoVisits);
    await context.close();
  });
});
