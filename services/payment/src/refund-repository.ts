import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
import { disputes, orders, refunds, subscriptions, type DisputeStatus } from './schema.ts';
import type { OrderRow } from './repository.ts';

export type RefundRow = typeof refunds.$inferSelect;
export type DisputeRow = typeof disputes.$inferSelect;

/** The refund and dispute tables (migrations/0004_refunds.sql), and the order rows they lock. */
export const refundRepository = {
  /** The order locked for a refund or dispute, with what its refunds (pending ones too) account for. */
  async lockOrder(tx: Executor, by: { id: string } | { paymentId: string }): Promise<(OrderRow & { accounted: number }) | null> {
    const where = 'id' in by ? sql`id = ${by.id}` : sql`payment_id = ${by.paymentId}`;
    const [locked] = await queryRows<{ id: string }>(tx, sql`select id from payment.orders where ${where} for update`);
    if (!locked) return null;
    const [order] = await tx.select().from(orders).where(eq(orders.id, locked.id));
    const [pending] = await tx
      .select({ amount: sql<number>`coalesce(sum(${refunds.amount}), 0)::int` })
      .from(refunds)
      .where(and(eq(refunds.orderId, locked.id), eq(refunds.status, 'pending')));
    return { ...order!, accounted: order!.refundedAmount + Number(pending!.amount) };
  },

  async insertRefund(tx: Executor, row: typeof refunds.$inferInsert): Promise<RefundRow> {
    const [inserted] = await tx.insert(refunds).values(row).returning();
    return inserted!;
  },

  async refundById(db: Executor, id: string): Promise<RefundRow | null> {
    const [row] = await db.select().from(refunds).where(eq(refunds.id, id));
    return row ?? null;
  },

  /** A pending refund the provider accepted; null when another caller recorded it first. */
  async markRefundSucceeded(tx: Executor, id: string, providerRefundId: string, at: Date): Promise<RefundRow | null> {
    const [row] = await tx
      .update(refunds)
      .set({ status: 'succeeded', providerRefundId, succeededAt: at })
      .where(and(eq(refunds.id, id), eq(refunds.status, 'pending')))
      .returning();
    return row ?? null;
  },

  async dropPendingRefund(tx: Executor, id: string): Promise<void> {
    await tx.delete(refunds).where(and(eq(refunds.id, id), eq(refunds.status, 'pending')));
  },

  async markRefundSynced(db: Executor, id: string, reversed: { coinsTaken: number; unlocksRevoked: number }, at: Date): Promise<void> {
    await db.update(refunds).set({ ...reversed, unlockSyncedAt: at }).where(eq(refunds.id, id));
  },

  async pendingRefundIds(db: Executor, before: Date, limit: number): Promise<string[]> {
    const rows = await db
      .select({ id: refunds.id })
      .from(refunds)
      .where(and(eq(refunds.status, 'pending'), lte(refunds.createdAt, before)))
      .orderBy(asc(refunds.createdAt))
      .limit(limit);
    return rows.map((row) => row.id);
  },

  async unsyncedRefundIds(db: Executor, before: Date, limit: number): Promise<string[]> {
    const rows = await db
      .select({ id: refunds.id })
      .from(refunds)
      .where(and(eq(refunds.status, 'succeeded'), isNull(refunds.unlockSyncedAt), lte(refunds.succeededAt, before)))
      .orderBy(asc(refunds.succeededAt))
      .limit(limit);
    return rows.map((row) => row.id);
  },

  /** Records a dispute once per provider id; null when it was recorded before. */
  async insertDispute(tx: Executor, row: typeof disputes.$inferInsert): Promise<DisputeRow | null> {
    const [inserted] = await tx.insert(disputes).values(row).onConflictDoNothing().returning();
    return inserted ?? null;
  },

  async disputeById(db: Executor, id: string): Promise<DisputeRow | null> {
    const [row] = await db.select().from(disputes).where(eq(disputes.id, id));
    return row ?? null;
  },

  disputesOf: (db: Executor, orderId: string) => db.select().from(disputes).where(eq(disputes.orderId, orderId)),

  /** Closes an open dispute, once. */
  async closeDispute(tx: Executor, id: string, status: Exclude<DisputeStatus, 'open'>, at: Date): Promise<DisputeRow | null> {
    const [row] = await tx
      .update(disputes)
      .set({ status, closedAt: at, unlockSyncedAt: status === 'lost' ? at : null })
      .where(and(eq(disputes.id, id), eq(disputes.status, 'open')))
      .returning();
    return row ?? null;
  },

  /** Marks the unlock service told of the dispute's status, unless it moved on meanwhile. */
  async markDisputeSynced(db: Executor, id: string, status: DisputeStatus, reversed: { coinsTaken: number; unlocksRevoked: number } | null, at: Date): Promise<void> {
    await db
      .update(disputes)
      .set({ ...(reversed ?? {}), unlockSyncedAt: at })
      .where(and(eq(disputes.id, id), eq(disputes.status, status)));
  },

  async unsyncedDisputeIds(db: Executor, before: Date, limit: number): Promise<string[]> {
    const rows = await db
      .select({ id: disputes.id })
      .from(disputes)
      .where(and(isNull(disputes.unlockSyncedAt), lte(disputes.openedAt, before)))
      .orderBy(asc(disputes.openedAt))
      .limit(limit);
    return rows.map((row) => row.id);
  },

  /** Whether an open dispute suspends the subscription: one over any order that paid for it. */
  async subscriptionDisputed(db: Executor, subscriptionId: string): Promise<boolean> {
    const [row] = await db
      .select({ id: disputes.id })
      .from(disputes)
      .innerJoin(orders, eq(orders.id, disputes.orderId))
      .innerJoin(subscriptions, eq(subscriptions.id, orders.subscriptionId))
      .where(and(eq(subscriptions.id, subscriptionId), inArray(disputes.status, ['open'])))
      .limit(1);
    return Boolean(row);
  },
};
