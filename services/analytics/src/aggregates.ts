import type { Attribution, BusEvent, EventType } from '@cliffhanger/platform';

/**
 * What each event counts for, as plain data: the consumers (events.ts) write it, the reports read it.
 * Nothing here touches the database.
 */

export interface Counters {
  /** Visits seen: a visit counts once, on the first of its hits to arrive. */
  visits: number;
  /** Visits whose first page (the `landing` hit) arrived: a visit lands once, whatever its client sends. */
  landings: number;
  pageViews: number;
  videoViews: number;
  plays: number;
  unlocks: number;
  orders: number;
  /** Minor units of USD. */
  revenueAmount: number;
  /** Minor units of USD given back (`order.refunded`): revenue net of refunds is revenueAmount less this. */
  refundedAmount: number;
  vipStarts: number;
  vipCancels: number;
}

/** Landing → video view → registration → first unlock or paid order → first paid order. */
export type FunnelStep = 'landed' | 'viewed' | 'registered' | 'converted' | 'paid';

/** What one event adds: counters, the funnel steps its user reached. */
export interface Fact {
  counts: Partial<Counters>;
  steps?: FunnelStep[];
  /** Counts only the first time of this reference: a play per user, episode and UTC day; a subscription's cancel; a refund. */
  once?: string;
  /** A payment in another currency than USD: a conversion, but no revenue of ours to add. */
  foreignCurrency?: string;
  /** The visit a page hit belongs to: its visit counts the first time, its landing the first time a landing of it comes. */
  visit?: { id: string; landing: boolean };
}

/** statics.hit as the pixel writes it (proto StaticsHit). */
export interface StaticsHit {
  event: string;
  videoId?: string;
  episodeId?: string;
  value?: { amount: number; currency: string };
  path?: string;
  params?: Record<string, string>;
}

interface MoneyData {
  amount?: number;
  currency?: string;
}

/** The events the summary and the funnel are made of, read by one consumer so they apply in commit order. */
export const aggregatedTypes = [
  'statics.hit',
  'history.recorded',
  'episode.unlocked',
  'order.created',
  'payment.succeeded',
  'order.refunded',
  'subscription.started',
  'subscription.canceled',
  'user.logged_in',
  'user.registered',
] as const satisfies readonly EventType[];

// Pixel event names: ours and the Facebook pixel's (the storefront may send either). A `landing` is
// the first page of a visit (docs/analytics.md), and a page view too.
const PAGE_VIEWS = new Set(['landing', 'page_view']);
const VIDEO_VIEWS = new Set(['video_view', 'view_content']);
export const PLAYBACK_EVENT = 'playback';

const MAX_KEY = 200;

// The viewer's day is unknown here; a UTC day is one rule for everyone (the catalog's play counts too).
export const dayOf = (event: BusEvent) => event.time.slice(0, 10);

/** A dimension's key as stored: trimmed and bounded; nothing for an empty value. */
export function keyOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const key = value.trim().slice(0, MAX_KEY);
  return key.length > 0 ? key : undefined;
}

/** The click id of an ad click: Facebook's fbclid, else TikTok's ttclid. */
export const clickIdOf = (attribution: Partial<Attribution> | undefined) => keyOf(attribution?.fbclid) ?? keyOf(attribution?.ttclid);

/** The campaign a hit names: `campaign`, else UTM's `utm_campaign`. */
export const campaignOf = (params: Record<string, string> | undefined) => keyOf(params?.campaign) ?? keyOf(params?.utm_campaign);

/** What `event` counts for in the summary and the funnel; null when it counts for nothing. */
export function factOf(event: BusEvent): Fact | null {
  switch (event.type) {
    case 'statics.hit': {
      const hit = event.data as unknown as StaticsHit;
      if (PAGE_VIEWS.has(hit.event)) {
        const visit = keyOf(hit.params?.visit);
        return { counts: { pageViews: 1 }, steps: ['landed'], ...(visit ? { visit: { id: visit, landing: hit.event === 'landing' } } : {}) };
      }
      if (VIDEO_VIEWS.has(hit.event)) return { counts: { videoViews: 1 }, steps: ['viewed'] };
      return null;
    }
    case 'history.recorded': {
      const episodeId = keyOf(event.data.episodeId);
      return episodeId && event.userId ? { counts: { plays: 1 }, once: `play:${event.userId}:${episodeId}:${dayOf(event)}` } : null;
    }
    case 'episode.unlocked':
      return { counts: { unlocks: 1 }, steps: ['converted'] };
    case 'order.created':
      return { counts: { orders: 1 } };
    case 'payment.succeeded': {
      const { amount = 0, currency = 'USD' } = (event.data.amount ?? {}) as MoneyData;
      if (currency !== 'USD') return { counts: {}, steps: ['converted', 'paid'], foreignCurrency: currency };
      return { counts: { revenueAmount: Math.max(0, Math.round(Number(amount) || 0)) }, steps: ['converted', 'paid'] };
    }
    case 'order.refunded': {
      // Counted on the refund's day, under the order's attribution (the event carries it), once per refund.
      const { amount = 0, currency = 'USD' } = (event.data.amount ?? {}) as MoneyData;
      const refundId = keyOf(event.data.refundId);
      if (currency !== 'USD') return { counts: {}, foreignCurrency: currency };
      return { counts: { refundedAmount: Math.max(0, Math.round(Number(amount) || 0)) }, ...(refundId ? { once: `refund:${refundId}` } : {}) };
    }
    case 'subscription.started':
      return { counts: { vipStarts: 1 } };
    case 'user.registered':
      return { counts: {}, steps: ['registered'] };
    case 'subscription.canceled': {
      const subscriptionId = keyOf(event.data.subscriptionId);
      return { counts: { vipCancels: 1 }, ...(subscriptionId ? { once: `vip-cancel:${subscriptionId}` } : {}) };
    }
    default:
      return null;
  }
}

/** One `playback` report of the player: a play's startup, rebuffering, watch time, rung and error. */
export interface PlaybackSample {
  episodeId?: string;
  rung?: string;
  /** Play request to first frame; null when not reported. */
  startupMs: number | null;
  rebufferCount: number;
  rebufferMs: number;
  /** Time spent playing (rebuffering not included); null when not reported. */
  watchMs: number | null;
  error: boolean;
}

const HOUR_MS = 3_600_000;

/** A whole number (a duration in milliseconds, a count) from a pixel parameter, at most `max`; null when missing or not one. */
function whole(value: string | undefined, max: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  const ms = Number(value);
  return Number.isFinite(ms) && ms >= 0 ? Math.min(Math.round(ms), max) : null;
}

/** The QoE sample of a statics.hit, or null when the hit is not a `playback` report. */
export function playbackSampleOf(hit: StaticsHit): PlaybackSample | null {
  if (hit.event !== PLAYBACK_EVENT) return null;
  const params = hit.params ?? {};
  const episodeId = keyOf(hit.episodeId);
  const rung = keyOf(params.rung);
  const error = keyOf(params.error);
  return {
    ...(episodeId ? { episodeId } : {}),
    ...(rung ? { rung } : {}),
    startupMs: whole(params.startupMs, 10 * 60_000),
    rebufferCount: whole(params.rebufferCount, 10_000) ?? 0,
    rebufferMs: whole(params.rebufferMs, 24 * HOUR_MS) ?? 0,
    watchMs: whole(params.watchMs, 24 * HOUR_MS),
    error: error !== undefined && error !== '0' && error.toLowerCase() !== 'false',
  };
}

/**
 * Upper bounds (ms) of the startup-time histogram's buckets, finer where startup times usually fall.
 * A sample above the last bound counts in the last bucket, so percentiles read at most 60 000.
 */
export const STARTUP_BUCKETS_MS = [
  100, 200, 300, 400, 500, 600, 700, 800, 900, 1_000, 1_250, 1_500, 1_750, 2_000, 2_500, 3_000, 4_000, 5_000, 6_000, 8_000, 10_000,
  15_000, 20_000, 30_000, 60_000,
] as const;

export const startupBucketOf = (ms: number): number => STARTUP_BUCKETS_MS.find((le) => ms <= le) ?? STARTUP_BUCKETS_MS.at(-1)!;

/**
 * The q-quantile (0 < q ≤ 1) of a histogram: the upper bound of the bucket holding the sample of
 * rank ⌈q·n⌉, so exact for samples on a bound and at most one bucket high otherwise; null when empty.
 */
export function quantileOf(buckets: { leMs: number; samples: number }[], q: number): number | null {
  const sorted = [...buckets].sort((a, b) => a.leMs - b.leMs);
  const total = sorted.reduce((sum, bucket) => sum + bucket.samples, 0);
  if (total === 0) return null;
  // The epsilon keeps float products such as 0.95 × 20 from rounding up a rank.
  const rank = Math.max(1, Math.ceil(q * total - 1e-9));
  let seen = 0;
  for (const bucket of sorted) {
    seen += bucket.samples;
    if (seen >= rank) return bucket.leMs;
  }
  return sorted.at(-1)!.leMs;
}
