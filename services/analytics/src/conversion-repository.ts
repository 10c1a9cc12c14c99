import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Executor } from '@cliffhanger/platform';
import { conversions, conversionUsers, type ConversionDestination } from './schema.ts';

export type ConversionRow = Pick<typeof conversions.$inferSelect, 'id' | 'destination' | 'eventId' | 'payload' | 'attempts' | 'lastError'>;

const inMs = (ms: number) => sql`now() + ${Math.max(0, Math.round(ms))} * interval '1 millisecond'`;

/** The only code that knows the conversion tables (migrations/0002_conversions.sql). */
export const conversionRepository = {
  /** Queues each entry once: one already queued for its destination and event id is left as it is. */
  async record(db: Executor, entries: { destination: ConversionDestination; eventId: string; payload: Record<string, unknown> }[]): Promise<void> {
    if (entries.length === 0) return;
    await db.insert(conversions).values(entries).onConflictDoNothing({ target: [conversions.destination, conversions.eventId] });
  },

  async rememberEmail(db: Executor, userId: string, emailSha256: string): Promise<void> {
    await db.insert(conversionUsers).values({ userId, emailSha256 }).onConflictDoUpdate({ target: conversionUsers.userId, set: { emailSha256 } });
  },

  async emailOf(db: Executor, userId: string): Promise<string | null> {
    const [row] = await db.select({ emailSha256: conversionUsers.emailSha256 }).from(conversionUsers).where(eq(conversionUsers.userId, userId));
    return row?.emailSha256 ?? null;
  },

  /**
   * Claims up to `limit` due conversions of these destinations for `leaseMs`, counting an attempt
   * each: another sender (another process) skips them meanwhile, and takes them over once the lease
   * lapses if this one dies mid-call.
   */
  async claimDue(db: Executor, destinations: ConversionDestination[], limit: number, leaseMs: number): Promise<ConversionRow[]> {
    const due = db
      .select({ id: conversions.id })
      .from(conversions)
      .where(and(isNull(conversions.sentAt), isNull(conversions.failedAt), lte(conversions.nextAttemptAt, sql`now()`), inArray(conversions.destination, destinations)))
      .orderBy(asc(conversions.nextAttemptAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    return db
      .update(conversions)
      .set({ attempts: sql`${conversions.attempts} + 1`, nextAttemptAt: inMs(leaseMs) })
      .where(inArray(conversions.id, due))
      .returning({
        id: conversions.id,
        destination: conversions.destination,
        eventId: conversions.eventId,
        payload: conversions.payload,
        attempts: conversions.attempts,
        lastError: conversions.lastError,
      });
  },

  async markSent(db: Executor, id: number): Promise<void> {
    await db.update(conversions).set({ sentAt: sql`now()`, lastError: null }).where(eq(conversions.id, id));
  },

  async retryLater(db: Executor, id: number, afterMs: number, error: string): Promise<void> {
    await db.update(conversions).set({ nextAttemptAt: inMs(afterMs), lastError: error }).where(eq(conversions.id, id));
  },

  async markFailed(db: Executor, id: number, error: string): Promise<void> {
    await db.update(conversions).set({ failedAt: sql`now()`, lastError: error }).where(eq(conversions.id, id));
  },
};
