import { sql } from 'drizzle-orm';
import type { Database } from '@cliffhanger/platform';
import { quantileOf } from './aggregates.ts';
import { analyticsRepository as repo, type FunnelCounts } from './repository.ts';
import type { AttributionModel, PlaybackDimension, SummaryDimension } from './schema.ts';

/** Whole UTC days, both ends included, as `YYYY-MM-DD`. */
export interface DayRange {
  from: string;
  to: string;
}

/** One row of GET /api/admin/analytics/summary (docs/api.md "Admin"). */
export interface SummaryRow {
  key: string;
  visits: number;
  landings: number;
  pageViews: number;
  videoViews: number;
  plays: number;
  unlocks: number;
  orders: number;
  /** Paid orders, gross of refunds. */
  revenue: { amount: number; currency: 'USD' };
  /** `revenue` less the refunds of the same days and key. */
  revenueNet: { amount: number; currency: 'USD' };
  vipStarts: number;
  vipCancels: number;
}

/** One row of GET /api/admin/analytics/playback. */
export interface PlaybackRow {
  key: string;
  plays: number;
  startupMsP50: number | null;
  startupMsP95: number | null;
  /** Rebuffering time over watch plus rebuffering time, 0 to 1; null when no report carried its watch time. */
  rebufferRatio: number | null;
  /** Stalls after the first frame. */
  rebufferCount: number;
  /** Plays the viewer left before the first frame, without an error. */
  exitsBeforeStart: number;
  /** Plays an error ended before the first frame. */
  startFailures: number;
  errors: number;
}

export type { FunnelCounts };

/** What an analyst reads: the aggregates the consumers keep, summed over a range of days. */
export function createAnalyticsReports({ database }: { database: Pick<Database, 'db' | 'transaction'> }) {
  const { db } = database;
  return {
    async summary(by: SummaryDimension, model: AttributionModel, range: DayRange): Promise<SummaryRow[]> {
      const rows = await repo.summary(db, by, model, range.from, range.to);
      return rows.map(({ revenueAmount, refundedAmount, ...row }) => ({
        key: row.key,
        visits: row.visits,
        landings: row.landings,
        pageViews: row.pageViews,
        videoViews: row.videoViews,
        plays: row.plays,
        unlocks: row.unlocks,
        orders: row.orders,
        revenue: { amount: revenueAmount, currency: 'USD' as const },
        revenueNet: { amount: revenueAmount - refundedAmount, currency: 'USD' as const },
        vipStarts: row.vipStarts,
        vipCancels: row.vipCancels,
      }));
    },

    /** Landing → video view → registration → first unlock or paid order → first paid order, of the users who first landed in the range. */
    funnel: (range: DayRange): Promise<FunnelCounts> => repo.funnelCounts(db, range.from, range.to),

    async playback(by: PlaybackDimension, range: DayRange): Promise<PlaybackRow[]> {
      // Counters and startup histogram from one snapshot: read apart, a delivery committing between
      // the two reads would show a play without its startup time.
      const [totals, buckets] = await database.transaction(async (tx) => {
        await tx.execute(sql`set transaction isolation level repeatable read, read only`);
        return [await repo.playbackTotals(tx, by, range.from, range.to), await repo.startupBuckets(tx, by, range.from, range.to)] as const;
      });
      const histograms = new Map<string, typeof buckets>();
      for (const bucket of buckets) histograms.set(bucket.key, [...(histograms.get(bucket.key) ?? []), bucket]);
      return totals.map((row) => {
        const histogram = histograms.get(row.key) ?? [];
        const timed = row.watchMs + row.rebufferMs;
        return {
          key: row.key,
          plays: row.plays,
          startupMsP50: quantileOf(histogram, 0.5),
          startupMsP95: quantileOf(histogram, 0.95),
          rebufferRatio: timed > 0 ? Math.round((row.rebufferMs / timed) * 10_000) / 10_000 : null,
          rebufferCount: row.rebufferCount,
          exitsBeforeStart: row.exitsBeforeStart,
          startFailures: row.startFailures,
          errors: row.errors,
        };
      });
    },
  };
}

export type AnalyticsReports = ReturnType<typeof createAnalyticsReports>;
