import { and, asc, between, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '@cliffhanger/platform';
import type { Counters, FunnelStep, PlaybackSample } from './aggregates.ts';
import {
  countedOnce,
  daily,
  funnel,
  mergedGuests,
  playback,
  playbackStartup,
  touches,
  type AttributionModel,
  type PlaybackDimension,
  type SummaryDimension,
  type TouchDimension,
} from './schema.ts';

/** A user's touches per dimension: the first key they came with and the latest. */
export type Touches = Partial<Record<TouchDimension, { first: string; last: string }>>;

export interface SummaryTotals extends Counters {
  key: string;
}

export interface PlaybackTotals {
  key: string;
  plays: number;
  errors: number;
  rebufferMs: number;
  watchMs: number;
  rebufferCount: number;
  exitsBeforeStart: number;
  startFailures: number;
}

export interface FunnelCounts {
  landed: number;
  viewed: number;
  registered: number;
  converted: number;
  paid: number;
}

/** `table.column + excluded.column`: what an upsert adds to a counter. */
const added = (column: PgColumn) => sql`${column} + excluded.${sql.identifier(column.name)}`;
/** The earlier of the stored and the new time (least() skips a null). */
const earliest = (column: PgColumn) => sql`least(${column}, excluded.${sql.identifier(column.name)})`;

/** Touches meet by time, not by arrival: the earlier first and the later last win, whichever came first. */
const touchMerge = {
  firstKey: sql`case when excluded.first_at < ${touches.firstAt} then excluded.first_key else ${touches.firstKey} end`,
  firstAt: sql`least(${touches.firstAt}, excluded.first_at)`,
  lastKey: sql`case when excluded.last_at >= ${touches.lastAt} then excluded.last_key else ${touches.lastKey} end`,
  lastAt: sql`greatest(${touches.lastAt}, excluded.last_at)`,
};

const funnelColumns = {
  landed: funnel.landedAt,
  viewed: funnel.firstVideoViewAt,
  registered: funnel.registeredAt,
  converted: funnel.firstConvertedAt,
  paid: funnel.firstPaidAt,
} as const;
const funnelFields = { landed: 'landedAt', viewed: 'firstVideoViewAt', registered: 'registeredAt', converted: 'firstConvertedAt', paid: 'firstPaidAt' } as const;

const total = (column: PgColumn) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number);

/** What one day's row of a model, dimension and key gains. */
export interface DailyTally extends Counters {
  day: string;
  model: AttributionModel;
  dimension: SummaryDimension;
  key: string;
}

const noCounts: Counters = {
  visits: 0,
  landings: 0,
  pageViews: 0,
  videoViews: 0,
  plays: 0,
  unlocks: 0,
  orders: 0,
  revenueAmount: 0,
  refundedAmount: 0,
  vipStarts: 0,
  vipCancels: 0,
};

/** Sums events' counts per day's row, to be written in one statement (`addToDaily`). */
export function dailyTally() {
  const rows = new Map<string, DailyTally>();
  return {
    add(day: string, keys: Record<AttributionModel, Partial<Record<SummaryDimension, string>>>, counts: Partial<Counters>): void {
      for (const [model, byDimension] of Object.entries(keys) as [AttributionModel, Partial<Record<SummaryDimension, string>>][])
        for (const [dimension, key] of Object.entries(byDimension) as [SummaryDimension, string | undefined][]) {
          if (!key) continue;
          const id = JSON.stringify([day, model, dimension, key]);
          let row = rows.get(id);
          if (!row) rows.set(id, (row = { day, model, dimension, key, ...noCounts }));
          for (const [name, value] of Object.entries(counts) as [keyof Counters, number][]) row[name] += value;
        }
    },
    rows: () => [...rows.values()],
  };
}

/** The only code that knows the analytics tables. */
export const analyticsRepository = {
  /**
   * The accounts merged guests became, of many users in one statement: a lookup answering each one's
   * account, else the user itself (a guest's late events count for the account).
   */
  async accountsOf(db: Executor, userIds: string[]): Promise<(userId: string) => string> {
    const merged = userIds.length === 0 ? [] : await db.select().from(mergedGuests).where(inArray(mergedGuests.guestId, [...new Set(userIds)]));
    const accounts = new Map(merged.map((row) => [row.guestId, row.accountId]));
    return (userId) => accounts.get(userId) ?? userId;
  },

  /** Records what an event at `at` brought as a touch of the user (nothing when it brought none). */
  async touch(db: Executor, userId: string, seen: Partial<Record<TouchDimension, string>>, at: string): Promise<void> {
    const rows = Object.entries(seen).flatMap(([dimension, key]) =>
      key ? [{ userId, dimension: dimension as TouchDimension, firstKey: key, firstAt: at, lastKey: key, lastAt: at }] : [],
    );
    if (rows.length > 0) await db.insert(touches).values(rows).onConflictDoUpdate({ target: [touches.userId, touches.dimension], set: touchMerge });
  },

  /** The user's first and last touch of each dimension. */
  async touchesOf(db: Executor, userId: string): Promise<Touches> {
    const known = await db.select().from(touches).where(eq(touches.userId, userId));
    return Object.fromEntries(known.map((row) => [row.dimension, { first: row.firstKey, last: row.lastKey }]));
  },

  /** True the first time `reference` is counted, false ever after. */
  async countOnce(db: Executor, reference: string): Promise<boolean> {
    const inserted = await db.insert(countedOnce).values({ reference }).onConflictDoNothing().returning({ reference: countedOnce.reference });
    return inserted.length > 0;
  },

  /**
   * Adds each tally's counts to its day's row (of its model, dimension and key) in one statement; the
   * tallies name each row once (`dailyTally` sums a delivery's events per row first).
   */
  async addToDaily(db: Executor, tallies: DailyTally[]): Promise<void> {
    if (tallies.length === 0) return;
    await db
      .insert(daily)
      .values(tallies)
      .onConflictDoUpdate({
        target: [daily.dimension, daily.model, daily.day, daily.key],
        set: {
          visits: added(daily.visits),
          landings: added(daily.landings),
          pageViews: added(daily.pageViews),
          videoViews: added(daily.videoViews),
          plays: added(daily.plays),
          unlocks: added(daily.unlocks),
          orders: added(daily.orders),
          revenueAmount: added(daily.revenueAmount),
          refundedAmount: added(daily.refundedAmount),
          vipStarts: added(daily.vipStarts),
          vipCancels: added(daily.vipCancels),
        },
      });
  },

  /** Keeps the earliest time the user reached `step`. */
  async markFunnel(db: Executor, userId: string, step: FunnelStep, at: string): Promise<void> {
    await db
      .insert(funnel)
      .values({ userId, [funnelFields[step]]: at })
      .onConflictDoUpdate({ target: funnel.userId, set: { [funnelFields[step]]: earliest(funnelColumns[step]) } });
  },

  /**
   * A guest who logged in to an account: from now on the guest's events count for the account (also
   * those applied later, from another topic); the guest's touches and funnel move into the account's,
   * the earlier first touch and the later last touch winning, so the user counts once.
   */
  async mergeGuest(db: Executor, guestId: string, accountId: string): Promise<void> {
    await db.insert(mergedGuests).values({ guestId, accountId }).onConflictDoNothing();
    const guestTouches = await db.delete(touches).where(eq(touches.userId, guestId)).returning();
    if (guestTouches.length > 0)
      await db
        .insert(touches)
        .values(guestTouches.map((row) => ({ ...row, userId: accountId })))
        .onConflictDoUpdate({ target: [touches.userId, touches.dimension], set: touchMerge });
    const [moved] = await db.delete(funnel).where(eq(funnel.userId, guestId)).returning();
    if (moved)
      await db
        .insert(funnel)
        .values({ ...moved, userId: accountId })
        .onConflictDoUpdate({
          target: funnel.userId,
          set: Object.fromEntries(Object.entries(funnelFields).map(([step, field]) => [field, earliest(funnelColumns[step as FunnelStep])])),
        });
  },

  /** Adds one playback report to the day's row of `dimension`/`key`, and its startup time to the histogram. */
  async addPlayback(db: Executor, day: string, dimension: PlaybackDimension, key: string, sample: PlaybackSample, startupBucket: number | null): Promise<void> {
    const timed = sample.watchMs !== null;
    // No startup time: the first frame never came, the viewer left first or an error ended the play.
    const unstarted = sample.startupMs === null;
    await db
      .insert(playback)
      .values({
        day,
        dimension,
        key,
        plays: 1,
        errors: sample.error ? 1 : 0,
        rebufferMs: timed ? sample.rebufferMs : 0,
        watchMs: sample.watchMs ?? 0,
        rebufferCount: sample.rebufferCount,
        exitsBeforeStart: unstarted && !sample.error ? 1 : 0,
        startFailures: unstarted && sample.error ? 1 : 0,
      })
      .onConflictDoUpdate({
        target: [playback.dimension, playback.day, playback.key],
        set: {
          plays: added(playback.plays),
          errors: added(playback.errors),
          rebufferMs: added(playback.rebufferMs),
          watchMs: added(playback.watchMs),
          rebufferCount: added(playback.rebufferCount),
          exitsBeforeStart: added(playback.exitsBeforeStart),
          startFailures: added(playback.startFailures),
        },
      });
    if (startupBucket === null) return;
    await db
      .insert(playbackStartup)
      .values({ day, dimension, key, leMs: startupBucket, samples: 1 })
      .onConflictDoUpdate({ target: [playbackStartup.dimension, playbackStartup.day, playbackStartup.key, playbackStartup.leMs], set: { samples: added(playbackStartup.samples) } });
  },

  /** Counters of one model summed over the days from `from` to `to`, per key: by day in date order, otherwise the most landings first. */
  async summary(db: Executor, dimension: SummaryDimension, model: AttributionModel, from: string, to: string): Promise<SummaryTotals[]> {
    const landings = total(daily.landings);
    const order: SQL[] = dimension === 'day' ? [asc(daily.key)] : [desc(landings), asc(daily.key)];
    return db
      .select({
        key: daily.key,
        visits: total(daily.visits),
        landings,
        pageViews: total(daily.pageViews),
        videoViews: total(daily.videoViews),
        plays: total(daily.plays),
        unlocks: total(daily.unlocks),
        orders: total(daily.orders),
        revenueAmount: total(daily.revenueAmount),
        refundedAmount: total(daily.refundedAmount),
        vipStarts: total(daily.vipStarts),
        vipCancels: total(daily.vipCancels),
      })
      .from(daily)
      .where(and(eq(daily.dimension, dimension), eq(daily.model, model), between(daily.day, from, to)))
      .groupBy(daily.key)
      .orderBy(...order);
  },

  /** Of the users whose first landing was in the range: how many viewed a video, how many converted. */
  async funnelCounts(db: Executor, from: string, to: string): Promise<FunnelCounts> {
    const [row] = await db
      .select({
        landed: sql<number>`count(*)`.mapWith(Number),
        viewed: sql<number>`count(${funnel.firstVideoViewAt})`.mapWith(Number),
        registered: sql<number>`count(${funnel.registeredAt})`.mapWith(Number),
        converted: sql<number>`count(${funnel.firstConvertedAt})`.mapWith(Number),
        paid: sql<number>`count(${funnel.firstPaidAt})`.mapWith(Number),
      })
      .from(funnel)
      // Landing times are UTC instants; the range is whole UTC days.
      .where(sql`${funnel.landedAt} >= ${from}::timestamp at time zone 'UTC' and ${funnel.landedAt} < (${to}::date + 1)::timestamp at time zone 'UTC'`);
    return row ?? { landed: 0, viewed: 0, registered: 0, converted: 0, paid: 0 };
  },

  async playbackTotals(db: Executor, dimension: PlaybackDimension, from: string, to: string): Promise<PlaybackTotals[]> {
    const plays = total(playback.plays);
    return db
      .select({
        key: playback.key,
        plays,
        errors: total(playback.errors),
        rebufferMs: total(playback.rebufferMs),
        watchMs: total(playback.watchMs),
        rebufferCount: total(playback.rebufferCount),
        exitsBeforeStart: total(playback.exitsBeforeStart),
        startFailures: total(playback.startFailures),
      })
      .from(playback)
      .where(and(eq(playback.dimension, dimension), between(playback.day, from, to)))
      .groupBy(playback.key)
      .orderBy(desc(plays), asc(playback.key));
  },

  /** The startup histogram of each key over the range. */
  async startupBuckets(db: Executor, dimension: PlaybackDimension, from: string, to: string): Promise<{ key: string; leMs: number; samples: number }[]> {
    return db
      .select({ key: playbackStartup.key, leMs: playbackStartup.leMs, samples: total(playbackStartup.samples) })
      .from(playbackStartup)
      .where(and(eq(playbackStartup.dimension, dimension), between(playbackStartup.day, from, to)))
      .groupBy(playbackStartup.key, playbackStartup.leMs);
  },
};
