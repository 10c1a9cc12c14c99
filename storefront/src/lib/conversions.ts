import { EVENT_DEFAULTS, trackEvent } from '../api/analytics';
import type { Money } from './format';
import { purchaseEventId, trackPixels } from './adPixels';
import { readUtm } from './attribution';
import { scrubUrl } from './sensitiveUrl';
import { readStored, STORAGE_KEYS, writeStored } from './storage';
import { keepVisitAlive, pageOfVisit } from './visit';

/**
 * What the storefront reports, each to our own pixel (statics.png, the analytics service's
 * aggregates) and to the advertisers' pixels (lib/adPixels.ts), under the names each one counts.
 */

/**
 * Our pixel gets the path and the visit: the first page of a visit is a `landing`, with the campaign
 * it came from. The vendors get the address too, without a secret a landing link may still carry.
 */
export function trackPageView(path: string, now = Date.now()): void {
  const { visit, landing } = pageOfVisit(now);
  // Every page of a visit carries the visit's campaign (a new campaign starts a new visit), so each
  // counts under it whether or not the landing's hit knew the viewer yet.
  trackEvent(landing ? 'landing' : 'page_view', { path, visit, ...readUtm() });
  trackPixels('page_view', { path, url: scrubUrl(window.location.href) });
}

/** An episode opened on the video page: `video_view` is what the analytics service counts as a video view. */
export function trackContentView(videoId: string, episodeId: string): void {
  keepVisitAlive();
  trackEvent('video_view', { videoId, episodeId });
  trackPixels('view_content', { videoId, episodeId });
}

/** An episode unlocked with coins. */
export function trackUnlock(unlock: { episodeId: string; videoId?: string; coins: number }): void {
  trackEvent('unlock', unlock);
  trackPixels('unlock', unlock);
}

/** How many reported orders the browser remembers: enough for any one buyer's recent result pages. */
const REMEMBERED_ORDERS = 50;
const reportedThisPage = new Set<string>();

function reportedOrders(): string[] {
  try {
    const stored: unknown = JSON.parse(readStored(STORAGE_KEYS.reportedOrders) ?? '[]');
    return Array.isArray(stored) ? stored.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** True the first time an order is seen on this browser: a result page shown again (re-render, reload, back) reports nothing. */
function firstReportOf(orderId: string): boolean {
  const remembered = reportedOrders();
  if (reportedThisPage.has(orderId) || remembered.includes(orderId)) return false;
  reportedThisPage.add(orderId);
  writeStored(STORAGE_KEYS.reportedOrders, JSON.stringify([...remembered, orderId].slice(-REMEMBERED_ORDERS)));
  return true;
}

/**
 * A paid order, once per order. The pixels' event id is the one the server's Conversions API sends
 * for the same order, so Meta and TikTok count the purchase once.
 */
export function trackPurchase(order: { id: string; planId: string; price: Money }): void {
  if (!firstReportOf(order.id)) return;
  const value = (Number.isFinite(order.price.amount) ? order.price.amount : 0) / 100;
  const currency = order.price.currency || EVENT_DEFAULTS.currency;
  trackEvent('purchase', { orderId: order.id, planId: order.planId, value, currency, eventId: purchaseEventId(order.id) });
  trackPixels('purchase', { orderId: order.id, planId: order.planId, value, currency });
}
