import type { BusEvent, EventBus, Executor, Logger } from '@cliffhanger/platform';
import { aggregatedTypes, campaignOf, clickIdOf, dayOf, factOf, keyOf, playbackSampleOf, startupBucketOf, type StaticsHit } from './aggregates.ts';
import { analyticsRepository as repo } from './repository.ts';

/**
 * Adds one event to the daily counters and the funnel. Its click id and referrer are the event's own,
 * else its user's first; its campaign the one the hit names, else its user's first. Everything is
 * written through `tx`, which also marks the event processed: a redelivered event counts nothing.
 */
export async function aggregateEvent(tx: Executor, event: BusEvent, logger: Logger): Promise<void> {
  if (event.type === 'user.logged_in') {
    const guestId = keyOf(event.data.mergedGuestId);
    if (guestId && event.userId) await repo.mergeGuest(tx, guestId, event.userId);
    return;
  }
  const fact = factOf(event);
  const seen = {
    campaign: event.type === 'statics.hit' ? (campaignOf((event.data as unknown as StaticsHit).params) ?? null) : null,
    referrerToken: keyOf(event.attribution?.referrerToken) ?? null,
    clickId: clickIdOf(event.attribution) ?? null,
  };
  const remembered = event.userId ? await repo.rememberUser(tx, event.userId, seen, event.time) : null;
  if (!fact) return;
  if (fact.foreignCurrency) logger.warn({ eventId: event.id, currency: fact.foreignCurrency }, 'revenue in another currency than USD not counted');
  if (fact.once && !(await repo.countOnce(tx, fact.once))) return;
  const day = dayOf(event);
  const keys = {
    day,
    clickId: seen.clickId ?? remembered?.clickId ?? undefined,
    referrer: seen.referrerToken ?? remembered?.referrerToken ?? undefined,
    campaign: fact.campaign ?? remembered?.campaign ?? undefined,
  };
  if (Object.keys(fact.counts).length > 0) await repo.addToDaily(tx, day, keys, fact.counts);
  if (fact.step && event.userId) await repo.markFunnel(tx, event.userId, fact.step, event.time);
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
  bus.subscribe('analytics.aggregates', aggregatedTypes, (event, tx) => aggregateEvent(tx, event, logger));
  bus.subscribe('analytics.playback', ['statics.hit'], (event, tx) => recordPlayback(tx, event));
}
