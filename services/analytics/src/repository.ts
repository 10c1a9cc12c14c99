import { and, asc, between, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '@cliffhanger/platform';
import type { Counters, FunnelStep, PlaybackSample } from './aggregates.ts';
import { countedOnce, daily, funnel, playback, playbackStartup, userAttribution, type PlaybackDimension, type SummaryDimension } from './schema.ts';

export type Remembered = Pick<typeof userAttribution.$inferSelect, 'campaign' | 'referrerToken' | 'clickId'>;

export interface SummaryTotals extends Counters {
  key: string;
}

export interface PlaybackTotals {
  key: string;
  plays: number;
  errors: number;
  rebufferMs: number;
  watchMs: number;
}

export interface FunnelCounts {
  landed: number;
  viewed: number;
  converted: number;
}

/** `table.column + excluded.column`: what an upsert adds to a counter. */
const added = (column: PgColumn) => sql`${column} + excluded.${sql.identifier(column.name)}`;
/** The earlier of the stored and the new time (least() skips a null). */
const earliest = (column: PgColumn) => sql`least(${column}, excluded.${sql.identifier(column.name)})`;
/** The stored value, or the new one where none was stored. */
const firstKnown = (column: PgColumn) => sql`coalesce(${column}, excluded.${sql.identifier(column.name)})`;

const funnelColumns = { landed: funnel.landedAt, viewed: funnel.firstVideoViewAt, converted: funnel.firstConvertedAt } as const;
const funnelFields = { landed: 'landedAt', viewed: 'firstVideoViewAt', converted: 'firstConvertedAt' } as const;

const total = (column: PgColumn) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number);

/** The only code that knows the analytics tables. */
export const analyticsRepository = {
  /**
   * Remembers what the user brought, where nothing was remembered yet (first touch), and answers what
   * is remembered now. Writes only when something is new: most events bring nothing new.
   */
  async rememberUser(db: Executor, userId: string, seen: Remembered, at: string): Promise<Remembered> {
    const [row] = await db
      .insert(userAttribution)
      .values({ userId, ...seen, firstSeenAt: at })
      .onConflictDoUpdate({
        target: userAttribution.userId,
        set: {
          campaign: firstKnown(userAttribution.campaign),
          referrerToken: firstKnown(userAttribution.referrerToken),
          clickId: firstKnown(userAttribution.clickId),
        },
        setWhere: sql`(${userAttribution.campaign} is null and excluded.campaign is not null)
          or (${userAttribution.referrerToken} is null and excluded.referrer_token is not null)
          or (${userAttribution.clickId} is null and excluded.click_id is not null)`,
      })
      .returning();
    if (row) return row;
    const [known] = await db.select().from(userAttribution).where(eq(userAttribution.userId, userId));
    return known!;
  },

  /** True the first time `reference` is counted, false ever after. */
  async countOnce(db: Executor, reference: string): Promise<boolean> {
    const inserted = await db.insert(countedOnce).values({ reference }).onConflictDoNothing().returning({ reference: countedOnce.reference });
    return inserted.length > 0;
  },

  /** Adds `counts` to the day's row of each dimension that has a key. */
  async addToDaily(db: Executor, day: string, keys: Partial<Record<SummaryDimension, string>>, counts: Partial<Counters>): Promise<void> {
    const rows = Object.entries(keys).flatMap(([dimension, key]) => (key ? [{ day, dimension: dimension as SummaryDimension, key, ...counts }] : []));
    if (rows.length === 0) return;
    await db
      .insert(daily)
      .values(rows)
      .onConflictDoUpdate({
        target: [daily.dimension, daily.day, daily.key],
        set: {
          landings: added(daily.landings),
          videoViews: added(daily.videoViews),
          plays: added(daily.plays),
          unlocks: added(daily.unlocks),
          orders: added(daily.orders),
          revenueAmount: added(daily.revenueAmount),
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
   * A guest who logged in to an account: the account keeps its own first touch where it has one and
   * takes the guest's otherwise; the guest's funnel moves into the account's, so the user counts once.
   */
  async mergeGuest(db: Executor, guestId: string, accountId: string): Promise<void> {
    const [guest] = await db.select().from(userAttribution).where(eq(userAttribution.userId, guestId));
    if (guest)
      await db
        .insert(userAttribution)
        .values({ ...guest, userId: accountId })
        .onConflictDoUpdate({
          target: userAttribution.userId,
          set: {
            campaign: firstKnown(userAttribution.campaign),
            referrerToken: firstKnown(userAttribution.referrerToken),
            clickId: firstKnown(userAttribution.clickId),
            firstSeenAt: earliest(userAttribution.firstSeenAt),
          },
        });
    const [moved] = await db.delete(funnel).where(eq(funnel.userId, guestId)).returning();
    if (moved)
      await db
        .insert(funnel)
        .values({ ...moved, userId: accountId })
        .onConflictDoUpdate({
          target: funnel.userId,
          set: { landedAt: earliest(funnel.landedAt), firstVideoViewAt: earliest(funnel.firstVideoViewAt), firstConvertedAt: earliest(funnel.firstConvertedAt) },
        });
  },

  /** Adds one playback report to the day's row of `dimension`/`key`, and its startup time to the histogram. */
  async addPlayback(db: Executor, day: string, dimension: PlaybackDimension, key: string, sample: PlaybackSample, startupBucket: number | null): Promise<void> {
    const timed = sample.watchMs !== null;
    await db
      .insert(playback)
      .values({ day, dimension, key, plays: 1, errors: sample.error ? 1 : 0, rebufferMs: timed ? sample.rebufferMs : 0, watchMs: sample.watchMs ?? 0 })
      .onConflictDoUpdate({
        target: [playback.dimension, playback.day, playback.key],
        set: { plays: added(playback.plays), errors: added(playback.errors), rebufferMs: added(playback.rebufferMs), watchMs: added(playback.watchMs) },
      });
    if (startupBucket === null) return;
    await db
      .insert(playbackStartup)
      .values({ day, dimension, key, leMs: startupBucket, samples: 1 })
      .onConflictDoUpdate({ target: [playbackStartup.dimension, playbackStartup.day, playbackStartup.key, playbackStartup.leMs], set: { samples: added(playbackStartup.samples) } });
  },

  /** Counters summed over the days from `from` to `to`, per key: by day in date order, otherwise the most landings first. */
  async summary(db: Executor, dimension: SummaryDimension, from: string, to: string): Promise<SummaryTotals[]> {
    const landings = total(daily.landings);
    const order: SQL[] = dimension === 'day' ? [asc(daily.key)] : [desc(landings), asc(daily.key)];
    return db
      .select({
        key: daily.key,
        landings,
        videoViews: total(daily.videoViews),
        plays: total(daily.plays),
        unlocks: total(daily.unlocks),
        orders: total(daily.orders),
        revenueAmount: total(daily.revenueAmount),
        vipStarts: total(daily.vipStarts),
        vipCancels: total(daily.vipCancels),
      })
      .from(daily)
      .where(and(eq(daily.dimension, dimension), between(daily.day, from, to)))
      .groupBy(daily.key)
      .orderBy(...order);
  },

  /** Of the users whose first landing was in the range: how many viewed a video, how many converted. */
  async funnelCounts(db: Executor, from: string, to: string): Promise<FunnelCounts> {
    const [row] = await db
      .select({
        landed: sql<number>`count(*)`.mapWith(Number),
        viewed: sql<number>`count(${funnel.firstVideoViewAt})`.mapWith(Number),
        converted: sql<number>`count(${funnel.firstConvertedAt})`.mapWith(Number),
      })
      .from(funnel)
      // Landing times are UTC instants; the range is whole UTC days.
      .where(sql`${funnel.landedAt} >= ${from}::timestamp at time zone 'UTC' and ${funnel.landedAt} < (${to}::date + 1)::timestamp at time zone 'UTC'`);
    return row ?? { landed: 0, viewed: 0, converted: 0 };
  },

  async playbackTotals(db: Executor, dimension: PlaybackDimension, from: string, to: string): Promise<PlaybackTotals[]> {
    const plays = total(playback.plays);
    return db
      .select({ key: playback.key, plays, errors: total(playback.errors), rebufferMs: total(playback.rebufferMs), watchMs: total(playback.watchMs) })
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
