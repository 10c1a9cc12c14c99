import { EVENT_DEFAULTS } from '../api/analytics';

/**
 * The advertising pixels the operator configured (GET /api/reports): Meta (Facebook), Google
 * Analytics, TikTok and Bigo. Each is installed with its vendor's own queue stub, so calls made
 * before its script arrives wait in the queue the script reads when it loads. A script that cannot
 * load (an ad blocker, no network) only ends that vendor's calls: nothing throws into the page.
 */

/** One item of GET /api/reports. */
export interface PixelConfigItem {
  config_key: string;
  config_value: string;
}

/** What the storefront reports, and what each event carries. Money is in major units (4.99). */
export interface PixelEvents {
  /** `url`: the address at the route change; a page view may wait for the pixel ids, the address not. */
  page_view: { path: string; url: string };
  view_content: { videoId: string; episodeId: string };
  unlock: { episodeId: string; videoId?: string; coins: number };
  purchase: { orderId: string; planId: string; value?: number; currency?: string };
}

export type PixelEventName = keyof PixelEvents;

/** The event id a purchase carries to Meta and TikTok, the same the server's Conversions API sends: one conversion, counted once. */
export const purchaseEventId = (orderId: string) => `order:${orderId}`;

type Command = (...args: unknown[]) => void;

/** A TikTok queue (the global one, or a pixel's): calls wait in it as [method, ...args]. */
type TikTokQueue = unknown[] & Record<string, unknown>;

interface TikTokPixel extends Array<unknown> {
  methods: string[];
  setAndDefer: (target: TikTokQueue, method: string) => void;
  instance: (id: string) => TikTokQueue;
  load: (id: string, options?: Record<string, unknown>) => void;
  page: Command;
  track: Command;
  _i?: Record<string, TikTokQueue>;
  _t?: Record<string, number>;
  _o?: Record<string, Record<string, unknown>>;
}

interface FacebookPixel extends Command {
  callMethod?: Command;
  queue: unknown[];
  push: FacebookPixel;
  loaded: boolean;
  version: string;
}

declare global {
  interface Window {
    fbq?: FacebookPixel;
    _fbq?: FacebookPixel;
    dataLayer?: unknown[];
    gtag?: Command;
    TiktokAnalyticsObject?: string;
    ttq?: TikTokPixel;
    bgdataLayer?: unknown[];
    bge?: Command;
  }
}

// Operator config, but it ends up in a script address: only plain ids pass.
const PIXEL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The script of each vendor: the addresses the gateway's Content-Security-Policy allows. */
export const PIXEL_SCRIPTS = {
  facebook: () => 'https://connect.facebook.net/en_US/fbevents.js',
  google: (id: string) => `https://www.googletagmanager.com/gtag/js?id=${id}`,
  tiktok: (id: string) => `https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=${id}&lib=ttq`,
  bigo: (id: string) => `https://api.imotech.video/ad/events.js?pixel_id=${id}`,
} as const;

type Vendor = keyof typeof PIXEL_SCRIPTS;

const VENDOR_OF_KEY: Record<string, Vendor> = {
  facebook_pixel_id: 'facebook',
  google_analytics: 'google',
  tiktok_pixel: 'tiktok',
  bigo_pixel: 'bigo',
};

const TIKTOK_METHODS = ['page', 'track', 'identify', 'instances', 'debug', 'on', 'off', 'once', 'ready', 'alias', 'group', 'enableCookie', 'disableCookie', 'holdConsent', 'revokeConsent', 'grantConsent'];

/** Adds a vendor's script; `onFail` runs when it cannot load. */
function addScript(src: string, onFail: () => void): void {
  const script = document.createElement('script');
  script.async = true;
  script.src = src;
  script.addEventListener(
    'error',
    () => {
      script.remove();
      onFail();
    },
    { once: true },
  );
  document.head.appendChild(script);
}

/** Meta's base code: `fbq` queues its calls until fbevents.js takes them over through `callMethod`. */
function installFacebook(id: string, onFail: () => void): void {
  if (!window.fbq) {
    const fbq = function () {
      // As in Meta's snippet, the queue holds each call's arguments object.
      if (fbq.callMethod) fbq.callMethod.apply(fbq, arguments as unknown as unknown[]);
      else fbq.queue.push(arguments);
    } as unknown as FacebookPixel;
    fbq.push = fbq;
    fbq.loaded = true;
    fbq.version = '2.0';
    fbq.queue = [];
    window.fbq = fbq;
    window._fbq ??= fbq;
    addScript(PIXEL_SCRIPTS.facebook(), onFail);
  }
  window.fbq('init', id);
}

/** Google's gtag.js snippet. Page views are sent per route change, so `config` sends none itself. */
function installGoogle(id: string, onFail: () => void): void {
  window.dataLayer ??= [];
  window.gtag ??= function () {
    // gtag.js tells its commands from other dataLayer entries by their being an arguments object.
    window.dataLayer!.push(arguments);
  };
  window.gtag('js', new Date());
  window.gtag('config', id, { send_page_view: false });
  addScript(PIXEL_SCRIPTS.google(id), onFail);
}

/** TikTok's base code: `ttq` is an array of waiting calls until events.js (added by `ttq.load`) replays them. */
function installTikTok(id: string, onFail: () => void): void {
  window.TiktokAnalyticsObject = 'ttq';
  if (!window.ttq) {
    const ttq = [] as unknown as TikTokPixel;
    ttq.methods = TIKTOK_METHODS;
    ttq.setAndDefer = (target, method) => {
      target[method] = (...args: unknown[]) => target.push([method, ...args]);
    };
    for (const method of TIKTOK_METHODS) ttq.setAndDefer(ttq as unknown as TikTokQueue, method);
    ttq.instance = (pixelId) => {
      const queue = ttq._i?.[pixelId] ?? ([] as unknown as TikTokQueue);
      for (const method of TIKTOK_METHODS) ttq.setAndDefer(queue, method);
      return queue;
    };
    ttq.load = (pixelId, options) => {
      const queue = [] as unknown as TikTokQueue;
      queue._u = 'https://analytics.tiktok.com/i18n/pixel/events.js';
      ttq._i = { ...ttq._i, [pixelId]: queue };
      ttq._t = { ...ttq._t, [pixelId]: Date.now() };
      ttq._o = { ...ttq._o, [pixelId]: options ?? {} };
      addScript(PIXEL_SCRIPTS.tiktok(pixelId), onFail);
    };
    window.ttq = ttq;
  }
  window.ttq.load(id);
}

/**
 * Bigo Ads' snippet as advertisers' sites embed it (Bigo's help pages document its server Events API
 * and event names, not this snippet): `bge` queues its calls in `bgdataLayer` for events.js.
 */
function installBigo(id: string, onFail: () => void): void {
  window.bgdataLayer ??= [];
  window.bge ??= function () {
    window.bgdataLayer!.push(arguments);
  };
  window.bge('init', id);
  addScript(PIXEL_SCRIPTS.bigo(id), onFail);
}

const INSTALL: Record<Vendor, (id: string, onFail: () => void) => void> = {
  facebook: installFacebook,
  google: installGoogle,
  tiktok: installTikTok,
  bigo: installBigo,
};

const money = (value: number | undefined, currency: string | undefined) => ({
  value: value ?? EVENT_DEFAULTS.value,
  currency: currency || EVENT_DEFAULTS.currency,
});

type Senders = { [E in PixelEventName]?: (params: PixelEvents[E]) => void };

// Each vendor's own names: Meta's and TikTok's standard events, GA4's recommended ones, Bigo's web
// events (page_view, ec_detail_view, ec_purchase; it has none for spending coins).
const SEND: Record<Vendor, Senders> = {
  facebook: {
    page_view: () => window.fbq!('track', 'PageView'),
    view_content: ({ videoId, episodeId }) =>
      window.fbq!('track', 'ViewContent', { content_ids: [episodeId], content_type: 'product', video_id: videoId, ...money(undefined, undefined) }),
    unlock: ({ episodeId, videoId, coins }) =>
      window.fbq!('trackCustom', 'UnlockEpisode', { content_ids: [episodeId], video_id: videoId, coins, ...money(undefined, undefined) }),
    purchase: ({ orderId, planId, value, currency }) =>
      window.fbq!('track', 'Purchase', { ...money(value, currency), content_ids: [planId], content_type: 'product' }, { eventID: purchaseEventId(orderId) }),
  },
  google: {
    // No page_title: a page sets its title once its data arrives, after the route change.
    page_view: ({ path, url }) => window.gtag!('event', 'page_view', { page_path: path, page_location: url }),
    view_content: ({ videoId, episodeId }) =>
      window.gtag!('event', 'view_item', { ...money(undefined, undefined), items: [{ item_id: episodeId, item_group_id: videoId }] }),
    unlock: ({ episodeId, coins }) => window.gtag!('event', 'spend_virtual_currency', { value: coins, virtual_currency_name: 'coins', item_name: episodeId }),
    purchase: ({ orderId, planId, value, currency }) =>
      window.gtag!('event', 'purchase', { transaction_id: orderId, ...money(value, currency), items: [{ item_id: planId }] }),
  },
  tiktok: {
    page_view: () => window.ttq!.page(),
    view_content: ({ videoId, episodeId }) =>
      window.ttq!.track('ViewContent', { contents: [{ content_id: episodeId, content_type: 'product' }], video_id: videoId, ...money(undefined, undefined) }),
    unlock: ({ episodeId, videoId, coins }) =>
      window.ttq!.track('UnlockEpisode', { contents: [{ content_id: episodeId, content_type: 'product' }], video_id: videoId, coins, ...money(undefined, undefined) }),
    purchase: ({ orderId, planId, value, currency }) =>
      window.ttq!.track('CompletePayment', { ...money(value, currency), contents: [{ content_id: planId, content_type: 'product' }] }, { event_id: purchaseEventId(orderId) }),
  },
  bigo: {
    page_view: () => window.bge!('event', 'page_view'),
    view_content: () => window.bge!('event', 'ec_detail_view'),
    purchase: ({ value, currency }) => window.bge!('event', 'ec_purchase', money(value, currency)),
  },
};

/** Vendors installed and not failed. */
const active = new Set<Vendor>();
let loaded = false;
/** Events tracked before the configuration is known (a first page view), sent once it is. */
const early: Array<() => void> = [];
const MAX_EARLY = 20;

function send<E extends PixelEventName>(name: E, params: PixelEvents[E]): void {
  for (const vendor of active) {
    try {
      (SEND[vendor][name] as ((params: PixelEvents[E]) => void) | undefined)?.(params);
    } catch {
      // A vendor's own code failing must not fail the page that reports to it.
    }
  }
}

/** Installs each configured pixel once per page; later calls change nothing. Invalid ids are skipped. */
export function loadPixels(config: readonly PixelConfigItem[]): void {
  if (loaded) return;
  loaded = true;
  for (const { config_key, config_value } of config) {
    const vendor = VENDOR_OF_KEY[config_key];
    if (!vendor || active.has(vendor) || typeof config_value !== 'string' || !PIXEL_ID.test(config_value)) continue;
    try {
      INSTALL[vendor](config_value, () => active.delete(vendor));
      active.add(vendor);
    } catch {
      // Another script's globals in the way: this vendor stays off.
    }
  }
  for (const sendEarly of early.splice(0)) sendEarly();
}

/** Reports an event to every loaded pixel, in each vendor's own words. */
export function trackPixels<E extends PixelEventName>(name: E, params: PixelEvents[E]): void {
  if (loaded) send(name, params);
  else if (early.length < MAX_EARLY) early.push(() => send(name, params));
}
