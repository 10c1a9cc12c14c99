import type { BusEvent, EventBus, Executor, Logger } from '@cliffhanger/platform';
import { aggregatedTypes, campaignOf, clickIdOf, dayOf, factOf, keyOf, playbackSampleOf, startupBucketOf, type StaticsHit } from './aggregates.ts';
import { analyticsRepository as repo, dailyTally } from './repository.ts';
import type { TouchDimension } from './schema.ts';

const ORDER_EVENTS = new Set<string>(['order.created', 'payment.succeeded', 'order.refunded']);

/** What aggregating a delivery's events shares: its users' accounts, and the days' counts it adds. */
interface Delivery {
  accountOf: (userId: string) => string;
  tally: ReturnType<typeof dailyTally>;
}

/**
 * Adds one event to the daily counters of both attribution models (the delivery's tally, written
 * at its end) and to the funnel. A merged guest's event counts for its account (the delivery's
 * `accountOf`), whenever the merge was applied. First touch: the user's earliest click id, referrer
 * and campaign; last touch: the event's own, else the user's latest. Everything is written through
 * `tx`, which also marks the event processed: a redelivered event counts nothing.
 */
export async function aggregateEvent(tx: Executor, event: BusEvent, logger: Logger, delivery: Delivery): Promise<void> {
  const { accountOf, tally } = delivery;
  if (event.type === 'user.logged_in') {
    const guestId = keyOf(event.data.mergedGuestId);
    if (guestId && event.userId) await repo.mergeGuest(tx, guestId, event.userId);
    return;
  }
  const userId = event.userId ? accountOf(event.userId) : null;
  const fact = factOf({ ...event, userId });
  const seen: Partial<Record<TouchDimension, string>> = {
    // A hit names its campaign in its fields; an order (and its payment and refund) carries the utm_*
    // fields it was placed with, and counts under its own utm_campaign when it has one.
    campaign: event.type === 'statics.hit' ? campaignOf((event.data as unknown as StaticsHit).params) : ORDER_EVENTS.has(event.type) ? keyOf(event.attribution?.utmCampaign) : undefined,
    referrer: keyOf(event.attribution?.referrerToken),
    clickId: clickIdOf(event.attribution),
  };
  if (userId) await repo.touch(tx, userId, seen, event.time);
  if (!fact) return;
  if (fact.foreignCurrency) logger.warn({ eventId: event.id, currency: fact.foreignCurrency }, 'revenue in another currency than USD not counted');
  if (fact.once && !(await repo.countOnce(tx, fact.once))) return;
  // Read only for what counts: most events counted once (a viewer's plays of an episode in a day) are not.
  const touched = userId ? await repo.touchesOf(tx, userId) : {};
  const counts = { ...fact.counts };
  if (fact.visit && (await repo.countOnce(tx, `visit:${fact.visit.id}`))) counts.visits = 1;
  if (fact.visit?.landing && (await repo.countOnce(tx, `landing:${fact.visit.id}`))) counts.landings = 1;
  const day = dayOf(event);
  const keysOf = (pick: (dimension: TouchDimension) => string | undefined) => ({
    day,
    clickId: pick('clickId'),
    referrer: pick('referrer'),
    campaign: pick('campaign'),
  });
  const keys = {
    first: keysOf((dimension) => touched[dimension]?.first ?? seen[dimension]),
    last: keysOf((dimension) => seen[dimension] ?? touched[dimension]?.last),
  };
  if (Object.keys(counts).length > 0) tally.add(day, keys, counts);
  if (userId) for (const step of fact.steps ?? []) await repo.markFunnel(tx, userId, step, event.time);
}

/** Adds a `playback` pixel hit to the QoE aggregates of its episode and of its rung. */
export async function recordPlayback(tx: Executor, event: BusEvent): Promise<void> {
  const sample = playbackSampleOf(event.data as unknown as StaticsHit);
  if (!sample) return;
  const bucket = sample.startupMs === null ? null : startupBucketOf(sample.startupMs);
  if (sample.episodeId) await repo.addPlayback(tx, dayOf(event), 'episode', sample.episodeId, sample, bucket);
  if (sample.rung) await repo.addPlayback(tx, dayOf(event), 'rung', sample.rung, sample, bucket);
}

/**
 * The analytics consumers. The summary and the funnel read one stream, so a landing is applied before
 * the order its user places later (on the Postgres bus: commit order; on Kafka, order holds per topic
 * and user only). Playback quality is a stream of its own: a failure there never holds up revenue.
 */
export function subscribeAnalyticsConsumers(bus: EventBus, logger: Logger): void {
  bus.subscribeBatch('analytics.aggregates', aggregatedTypes, async (events, tx) => {
    // The accounts of a delivery's users read at once, and again after a login merged a guest.
    const usersOf = (from: number) => events.slice(from).flatMap((event) => (event.userId ? [event.userId] : []));
    // The days' counts summed over the delivery and written once at its end (nothing in it reads them).
    const delivery: Delivery = { accountOf: await repo.accountsOf(tx, usersOf(0)), tally: dailyTally() };
    for (const [i, event] of events.entries()) {
      await aggregateEvent(tx, event, logger, delivery);
      if (event.type === 'user.logged_in' && i + 1 < events.length) delivery.accountOf = await repo.accountsOf(tx, usersOf(i + 1));
    }
    await repo.addToDaily(tx, delivery.tally.rows());
  });
  bus.subscribe('analytics.playback', ['statics.hit'], (event, tx) => recordPlayback(tx, event));
}
