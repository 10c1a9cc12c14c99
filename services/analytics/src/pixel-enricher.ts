import { appendEventBatch, takeEdgeBatch, type Background, type Platform } from '@cliffhanger/platform';
import { sql } from 'drizzle-orm';
import { pixelHitCounter } from './pixel.ts';
import { hitEventsOf, PIXEL_EDGE, pruneSalts } from './pixel-hits.ts';

type EnricherPlatform = Pick<Platform, 'config' | 'database' | 'bus' | 'logger' | 'metrics'>;

/**
 * Turns the batches of hits the gateways' pixel stored into statics.hit events, where the analytics
 * module runs: a batch at a time, oldest first, each one outbox row written in the transaction that
 * deletes the batch (`takeEdgeBatch`), so every hit becomes its event once and in order.
 */
export function createHitEnricher({ config, database, bus, logger, metrics }: EnricherPlatform, pollMs = config.PIXEL_FLUSH_MS) {
  const ignored = pixelHitCounter(metrics.registry).labels('ignored');
  let stopped = false;
  let running: Promise<number> | null = null;

  /** Takes every batch waiting, until none is left (or another process is taking them): answers how many. */
  async function takeWaiting(): Promise<number> {
    let taken = 0;
    for (;;) {
      let unnamed = 0;
      const took = await takeEdgeBatch(database, PIXEL_EDGE, async (tx, batch) => {
        const { events, hits } = hitEventsOf(batch.body);
        unnamed = hits - events.length;
        if (events.length === 0) return;
        // As the edge wrote the batch: a crash in the moment before the WAL flush loses this
        // transaction whole, and the batch is still there to take.
        await tx.execute(sql`set local synchronous_commit = off`);
        await appendEventBatch(tx, 'statics.hit', events);
      });
      if (!took) break;
      taken++;
      ignored.inc(unnamed);
      if (stopped) break;
    }
    if (taken > 0) bus.nudge();
    return taken;
  }

  /** One run at a time: a call during a run shares it. */
  function run(): Promise<number> {
    running ??= takeWaiting()
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'statics.png hits not turned into events yet; trying again');
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  return {
    /** Takes what waits now, rather than at the next poll (tests). */
    run,
    /** Takes what waits now and every `pollMs`, until stopped. */
    start(): Background {
      void run();
      const timer = setInterval(() => void run(), pollMs).unref();
      // The gateways delete a day's address salt when they meet the next day; a quiet site's too, here.
      const prune = () => void pruneSalts(database).catch((error: unknown) => logger.warn({ err: error }, 'statics.png: old address salts not deleted yet'));
      prune();
      const pruning = setInterval(prune, 60 * 60_000).unref();
      return {
        async stop() {
          stopped = true;
          clearInterval(timer);
          clearInterval(pruning);
          await running;
        },
      };
    },
  };
}
