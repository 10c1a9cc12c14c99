import type { BrowserContext, Page } from 'playwright-core';

/** The ad pixel ids the suite's site runs with (read by the analytics service, answered by GET /api/reports). */
export const PIXEL_IDS = {
  facebook: '1234567890',
  google: 'G-E2E12345',
  tiktok: 'CE2ETIKTOK42',
  bigo: 'bigo-e2e-7',
};

export const PIXEL_ENV = {
  FACEBOOK_PIXEL_ID: PIXEL_IDS.facebook,
  GOOGLE_ANALYTICS_ID: PIXEL_IDS.google,
  TIKTOK_PIXEL_ID: PIXEL_IDS.tiktok,
  BIGO_PIXEL_ID: PIXEL_IDS.bigo,
};

export const NO_PIXEL_ENV = { FACEBOOK_PIXEL_ID: '', GOOGLE_ANALYTICS_ID: '', TIKTOK_PIXEL_ID: '', BIGO_PIXEL_ID: '' };

export type Vendor = keyof typeof PIXEL_IDS;

/** The script address each vendor's snippet loads. */
export const VENDOR_SCRIPTS: Record<Vendor, string> = {
  facebook: 'https://connect.facebook.net/en_US/fbevents.js',
  google: `https://www.googletagmanager.com/gtag/js?id=${PIXEL_IDS.google}`,
  tiktok: `https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=${PIXEL_IDS.tiktok}&lib=ttq`,
  bigo: `https://api.imotech.video/ad/events.js?pixel_id=${PIXEL_IDS.bigo}`,
};

// Stand-ins for the vendors' scripts. Each takes over its snippet's queue the way the real script
// does (Meta's `callMethod`, gtag's and Bigo's dataLayer push of arguments objects, TikTok's array
// and methods) and records every call in window.__pixelCalls[vendor], queued ones first.
const STAND_INS: Record<Vendor, string> = {
  facebook: `(function () {
    var calls = (window.__pixelCalls = window.__pixelCalls || {}).facebook = [];
    var fbq = window.fbq;
    var record = function () { calls.push(Array.prototype.slice.call(arguments)); };
    fbq.queue.forEach(function (entry) { record.apply(null, entry); });
    fbq.queue = [];
    fbq.callMethod = record;
  })();`,
  google: `(function () {
    var calls = (window.__pixelCalls = window.__pixelCalls || {}).google = [];
    var dataLayer = window.dataLayer;
    var record = function (entry) {
      if (Object.prototype.toString.call(entry) === '[object Arguments]') calls.push(Array.prototype.slice.call(entry));
    };
    dataLayer.forEach(record);
    dataLayer.push = function (entry) { record(entry); return Array.prototype.push.call(dataLayer, entry); };
  })();`,
  tiktok: `(function () {
    var calls = (window.__pixelCalls = window.__pixelCalls || {}).tiktok = [];
    var ttq = window.ttq;
    var sdkid = new URL(document.currentScript.src).searchParams.get('sdkid');
    calls.push(['load', sdkid, Boolean(ttq._i && ttq._i[sdkid])]);
    for (var i = 0; i < ttq.length; i++) calls.push(Array.prototype.slice.call(ttq[i]));
    ttq.length = 0;
    ttq.methods.forEach(function (method) {
      ttq[method] = function () { calls.push([method].concat(Array.prototype.slice.call(arguments))); };
    });
  })();`,
  bigo: `(function () {
    var calls = (window.__pixelCalls = window.__pixelCalls || {}).bigo = [];
    var dataLayer = window.bgdataLayer;
    var record = function (entry) {
      if (Object.prototype.toString.call(entry) === '[object Arguments]') calls.push(Array.prototype.slice.call(entry));
    };
    dataLayer.forEach(record);
    dataLayer.push = function (entry) { record(entry); return Array.prototype.push.call(dataLayer, entry); };
  })();`,
};

/** How the vendors answer: their stand-in scripts, or the ways a script fails (a 404, an ad blocker, no network). */
export type VendorAnswer = 'stand-ins' | 'failing';

const vendorOf = (url: string) => (Object.keys(VENDOR_SCRIPTS) as Vendor[]).find((vendor) => new URL(VENDOR_SCRIPTS[vendor]).origin === new URL(url).origin);

/**
 * Answers every request that leaves the site: the vendors' scripts as `answer` says, anything else
 * refused. Nothing reaches the internet. Returns the addresses asked for, in order.
 */
export async function routeThirdParties(context: BrowserContext, siteOrigin: string, answer: VendorAnswer): Promise<string[]> {
  const requested: string[] = [];
  await context.route(
    (url) => url.protocol.startsWith('http') && url.origin !== siteOrigin,
    async (route) => {
      const url = route.request().url();
      requested.push(url);
      const vendor = vendorOf(url);
      if (!vendor || url !== VENDOR_SCRIPTS[vendor]) return route.abort('blockedbyclient');
      if (answer === 'stand-ins') return route.fulfill({ status: 200, contentType: 'text/javascript', body: STAND_INS[vendor] });
      if (vendor === 'facebook' || vendor === 'tiktok') return route.fulfill({ status: 404, contentType: 'text/html', body: '<h1>Not Found</h1>' });
      return route.abort(vendor === 'google' ? 'blockedbyclient' : 'internetdisconnected');
    },
  );
  return requested;
}

export type PixelCalls = Partial<Record<Vendor, unknown[][]>>;

export const pixelCalls = (page: Page): Promise<PixelCalls> =>
  page.evaluate(() => (window as unknown as { __pixelCalls?: PixelCalls }).__pixelCalls ?? {});

/** Waits until the calls recorded so far pass `check`, and answers them. */
export async function waitForPixelCalls(page: Page, check: (calls: PixelCalls) => boolean, timeoutMs = 15_000): Promise<PixelCalls> {
  const deadline = Date.now() + timeoutMs;
  let calls = await pixelCalls(page);
  while (!check(calls)) {
    if (Date.now() > deadline) throw new Error(`the pixel calls never got there: ${JSON.stringify(calls)}`);
    await page.waitForTimeout(200);
    calls = await pixelCalls(page);
  }
  return calls;
}

/** The calls of one vendor named `name` (fbq's and ttq's method plus event, gtag's and Bigo's command plus event). */
export const callsNamed = (calls: unknown[][] | undefined, ...name: unknown[]) =>
  (calls ?? []).filter((call) => name.every((part, index) => call[index] === part));
