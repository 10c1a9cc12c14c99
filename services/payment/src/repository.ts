import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, lte, notInArray, or, sql } from 'drizzle-orm';
import type { Executor } from '@cliffhanger/platform';
import { guestMerges, mailsSent, orders, payRequests, plans, processedWebhooks, subscriptions, type OrderStatus } from './schema.ts';

export type PlanRow = typeof plans.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type PayRequestRow = typeof payRequests.$inferSelect;

export type PlanChanges = Partial<Pick<PlanRow, 'title' | 'priceAmount' | 'coins' | 'bonusCoins' | 'periodDays' | 'active' | 'position' | 'retiredAt'>>;
export type SubscriptionChanges = Partial<Omit<SubscriptionRow, 'id' | 'userId' | 'startedAt'>>;

const live = inArray(subscriptions.status, ['active', 'past_due']);

/** The only code that knows the payment service's tables. */
export const paymentRepository = {
  plans: (db: Executor, options: { activeOnly: boolean }) =>
    db
      .select()
      .from(plans)
      .where(options.activeOnly ? eq(plans.active, true) : undefined)
      .orderBy(asc(plans.position), asc(plans.id)),

  async planById(db: Executor, id: string): Promise<PlanRow | null> {
    const [row] = await db.select().from(plans).where(eq(plans.id, id));
    return row ?? null;
  },

  async lockPlan(tx: Executor, id: string): Promise<PlanRow | null> {
    const [row] = await tx.select().from(plans).where(eq(plans.id, id)).for('update');
    return row ?? null;
  },

  /** A new plan; null when its id is taken. */
  async insertPlan(tx: Executor, row: typeof plans.$inferInsert): Promise<PlanRow | null> {
    const [inserted] = await tx.insert(plans).values(row).onConflictDoNothing().returning();
    return inserted ?? null;
  },

  async updatePlan(db: Executor, id: string, changes: PlanChanges, at: Date): Promise<PlanRow | null> {
    const [row] = await db.update(plans).set({ ...changes, updatedAt: at }).where(eq(plans.id, id)).returning();
    return row ?? null;
  },

  async insertOrder(db: Executor, row: typeof orders.$inferInsert): Promise<OrderRow> {
    const [inserted] = await db.insert(orders).values(row).returning();
    return inserted!;
  },

  async orderById(db: Executor, id: string): Promise<OrderRow | null> {
    const [row] = await db.select().from(orders).where(eq(orders.id, id));
    return row ?? null;
  },

  ordersPage: (db: Executor, userId: string, offset: number, limit: number) =>
    db.select().from(orders).where(eq(orders.userId, userId)).orderBy(desc(orders.createdAt), desc(orders.id)).offset(offset).limit(limit),

  /** Whether the user ever paid: a refunded order was paid too. */
  async hasPaid(db: Executor, userId: string): Promise<boolean> {
    const [row] = await db
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.userId, userId), inArray(orders.status, ['succeeded', 'partially_refunded', 'refunded'])))
      .limit(1);
    return Boolean(row);
  },

  /** Whether `error` is the database refusing a second paid first-purchase offer of one user (the unique index `orders_one_first_purchase`). */
  isOfferPaidBefore(error: unknown): boolean {
    const cause = (error as { cause?: unknown })?.cause ?? error;
    const { code, constraint } = cause as { code?: string; constraint?: string };
    return code === '23505' && constraint === 'orders_one_first_purchase';
  },

  /** Moves an order from one of `from` to its new state; null when it was in none of them (someone else moved it first). */
  async moveOrder(db: Executor, id: string, from: OrderStatus[], changes: Partial<OrderRow>): Promise<OrderRow | null> {
    const [row] = await db
      .update(orders)
      .set(changes)
      .where(and(eq(orders.id, id), inArray(orders.status, from)))
      .returning();
    return row ?? null;
  },

  /** A failure reported by the provider counts only for the attempt the order is waiting on. */
  async failPendingPayment(db: Executor, id: string, paymentId: string, reason: string, at: Date): Promise<OrderRow | null> {
    const [row] = await db
      .update(orders)
      .set({ status: 'failed', failureReason: reason, updatedAt: at })
      .where(and(eq(orders.id, id), eq(orders.status, 'created'), eq(orders.paymentId, paymentId)))
      .returning();
    return row ?? null;
  },

  async setOrderFields(db: Executor, id: string, changes: Partial<OrderRow>): Promise<void> {
    await db.update(orders).set(changes).where(eq(orders.id, id));
  },

  /** Marks the unlock service told of the order's status and owner, unless either moved on meanwhile (a refund, a guest's login). */
  async markSynced(db: Executor, id: string, status: OrderStatus, userId: string, at: Date): Promise<boolean> {
    const rows = await db
      .update(orders)
      .set({ unlockSyncedAt: at })
      .where(and(eq(orders.id, id), eq(orders.status, status), eq(orders.userId, userId)))
      .returning({ id: orders.id });
    return rows.length > 0;
  },

  /** Paid or refunded orders the unlock service has not heard of, last changed before `before`. */
  async unsyncedOrderIds(db: Executor, before: Date, limit: number): Promise<string[]> {
    const rows = await db
      .select({ id: orders.id })
      .from(orders)
      .where(and(isNull(orders.unlockSyncedAt), inArray(orders.status, ['succeeded', 'partially_refunded', 'refunded']), lte(orders.updatedAt, before)))
      .orderBy(asc(orders.updatedAt))
      .limit(limit);
    return rows.map((row) => row.id);
  },

  /**
   * Orders waiting on the provider (3-D Secure, PayPal, processing) untouched since `before` and
   * placed within the hour before it: a webhook lost for longer is left to the provider's own retries.
   */
  waitingOrders: (db: Executor, before: Date, limit: number) =>
    db
      .select()
      .from(orders)
      .where(
        and(
          eq(orders.status, 'created'),
          isNotNull(orders.paymentId),
          lte(orders.updatedAt, before),
          gte(orders.createdAt, new Date(before.getTime() - 3_600_000)),
        ),
      )
      .orderBy(asc(orders.updatedAt))
      .limit(limit),

  async renewalOrder(db: Executor, subscriptionId: string, periodStart: Date): Promise<OrderRow | null> {
    const [row] = await db
      .select()
      .from(orders)
      .where(and(eq(orders.subscriptionId, subscriptionId), eq(orders.periodStart, periodStart)));
    return row ?? null;
  },

  /**
   * The subscription's renewal order whose off-session charge was asked under its recorded key and
   * never answered (the process died in between), whatever period it was made for: the subscription's
   * `renews_at` may have moved since (a guest merge adds the unused days of the VIP it ends).
   */
  async openRenewalCharge(db: Executor, subscriptionId: string): Promise<OrderRow | null> {
    const [row] = await db
      .select()
      .from(orders)
      .where(and(eq(orders.subscriptionId, subscriptionId), eq(orders.status, 'created'), isNotNull(orders.paymentKey)))
      .orderBy(asc(orders.createdAt))
      .limit(1);
    return row ?? null;
  },

  /**
   * Renewal orders whose charge was asked and never answered, untouched since `before` (the process
   * that asked died), with their subscriptions: live ones may not fall due for days (past due, or
   * renews_at moved by a guest merge), ended ones never will.
   */
  openRenewalCharges: (db: Executor, before: Date, limit: number) =>
    db
      .select({ order: orders, subscription: subscriptions })
      .from(orders)
      .innerJoin(subscriptions, eq(subscriptions.id, orders.subscriptionId))
      .where(and(eq(orders.status, 'created'), isNotNull(orders.paymentKey), lte(orders.updatedAt, before)))
      .orderBy(asc(orders.updatedAt))
      .limit(limit),

  /** Inserts the period's renewal order unless one exists (two processes racing make one). */
  async insertRenewalOrder(db: Executor, row: typeof orders.$inferInsert): Promise<OrderRow | null> {
    const [inserted] = await db.insert(orders).values(row).onConflictDoNothing().returning();
    return inserted ?? null;
  },

  /** Claims an Idempotency-Key; false when it (or another attempt at the same order) is already claimed. */
  async claimPayRequest(db: Executor, row: typeof payRequests.$inferInsert): Promise<boolean> {
    const claimed = await db.insert(payRequests).values(row).onConflictDoNothing().returning({ keyHash: payRequests.keyHash });
    return claimed.length > 0;
  },

  async payRequest(db: Executor, userId: string, keyHash: string): Promise<PayRequestRow | null> {
    const [row] = await db.select().from(payRequests).where(and(eq(payRequests.userId, userId), eq(payRequests.keyHash, keyHash)));
    return row ?? null;
  },

  /** Takes over a claim whose holder stopped before answering (a crash): only one replay wins it. */
  async takeOverPayRequest(db: Executor, userId: string, keyHash: string, staleBefore: Date, at: Date): Promise<boolean> {
    const rows = await db
      .update(payRequests)
      .set({ claimedAt: at })
      .where(
        and(eq(payRequests.userId, userId), eq(payRequests.keyHash, keyHash), eq(payRequests.state, 'in_flight'), lte(payRequests.claimedAt, staleBefore)),
      )
      .returning({ keyHash: payRequests.keyHash });
    return rows.length > 0;
  },

  async finishPayRequest(db: Executor, userId: string, keyHash: string, result: unknown): Promise<void> {
    await db
      .update(payRequests)
      .set({ state: 'done', result })
      .where(and(eq(payRequests.userId, userId), eq(payRequests.keyHash, keyHash), eq(payRequests.state, 'in_flight')));
  },

  async releasePayRequest(db: Executor, userId: string, keyHash: string): Promise<void> {
    await db
      .delete(payRequests)
      .where(and(eq(payRequests.userId, userId), eq(payRequests.keyHash, keyHash), eq(payRequests.state, 'in_flight')));
  },

  /** Records a webhook event; false when it had been applied before. */
  async markWebhookProcessed(db: Executor, eventId: string, type: string, orderId: string | null, at: Date): Promise<boolean> {
    const rows = await db
      .insert(processedWebhooks)
      .values({ eventId, type, orderId, processedAt: at })
      .onConflictDoNothing()
      .returning({ eventId: processedWebhooks.eventId });
    return rows.length > 0;
  },

  /** Serialises the changes of one user's subscriptions until the transaction ends. */
  async lockSubscriptionsOf(tx: Executor, userId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`payment.subscription:${userId}`}))`);
  },

  /** Whose subscription is now (a guest merge moves it to the member). */
  async subscriptionOwner(db: Executor, id: string): Promise<string | null> {
    const [row] = await db.select({ userId: subscriptions.userId }).from(subscriptions).where(eq(subscriptions.id, id));
    return row?.userId ?? null;
  },

  async liveSubscriptionOf(db: Executor, userId: string): Promise<SubscriptionRow | null> {
    const [row] = await db.select().from(subscriptions).where(and(eq(subscriptions.userId, userId), live));
    return row ?? null;
  },

  /** The live subscription, else the one started last (a merge can leave an ended one started later than the live one). */
  async latestSubscriptionOf(db: Executor, userId: string): Promise<SubscriptionRow | null> {
    const [row] = await db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userId, userId))
      .orderBy(desc(live), desc(subscriptions.startedAt), desc(subscriptions.id))
      .limit(1);
    return row ?? null;
  },

  async insertSubscription(db: Executor, row: typeof subscriptions.$inferInsert): Promise<SubscriptionRow> {
    const [inserted] = await db.insert(subscriptions).values(row).returning();
    return inserted!;
  },

  /**
   * Changes a live subscription still as the caller saw it: in the same period (`renewsAt`) and,
   * when given, after as many failed renewals (`retryCount`). Null when it moved on meanwhile.
   */
  async changeLiveSubscription(
    db: Executor,
    id: string,
    seen: { renewsAt?: Date; retryCount?: number },
    changes: SubscriptionChanges,
  ): Promise<SubscriptionRow | null> {
    const [row] = await db
      .update(subscriptions)
      .set(changes)
      .where(
        and(
          eq(subscriptions.id, id),
          live,
          seen.renewsAt ? eq(subscriptions.renewsAt, seen.renewsAt) : undefined,
          seen.retryCount === undefined ? undefined : eq(subscriptions.retryCount, seen.retryCount),
        ),
      )
      .returning();
    return row ?? null;
  },

  /** Live subscriptions whose renewal, retry or end is due at `at` and that no process is renewing. */
  dueSubscriptions: (db: Executor, at: Date, limit: number, skip: string[]) =>
    db
      .select()
      .from(subscriptions)
      .where(
        and(
          live,
          or(
            and(eq(subscriptions.status, 'active'), lte(subscriptions.renewsAt, at)),
            and(eq(subscriptions.status, 'past_due'), or(lte(subscriptions.nextRetryAt, at), eq(subscriptions.cancelAtPeriodEnd, true))),
          ),
          or(isNull(subscriptions.renewalLeaseUntil), lte(subscriptions.renewalLeaseUntil, at)),
          skip.length ? notInArray(subscriptions.id, skip) : undefined,
        ),
      )
      .orderBy(asc(subscriptions.renewsAt))
      .limit(limit),

  /** Leases a due renewal to this process until `until`; false when another process holds it or it moved on. */
  async leaseRenewal(db: Executor, sub: SubscriptionRow, at: Date, until: Date): Promise<boolean> {
    const rows = await db
      .update(subscriptions)
      .set({ renewalLeaseUntil: until })
      .where(
        and(
          eq(subscriptions.id, sub.id),
          live,
          eq(subscriptions.renewsAt, sub.renewsAt),
          eq(subscriptions.retryCount, sub.retryCount),
          or(isNull(subscriptions.renewalLeaseUntil), lte(subscriptions.renewalLeaseUntil, at)),
        ),
      )
      .returning({ id: subscriptions.id });
    return rows.length > 0;
  },

  async releaseRenewal(db: Executor, id: string): Promise<void> {
    await db.update(subscriptions).set({ renewalLeaseUntil: null }).where(eq(subscriptions.id, id));
  },

  /** Claims a mail by its key; false when it was claimed (sent) before. */
  async claimMail(db: Executor, row: typeof mailsSent.$inferInsert): Promise<boolean> {
    const rows = await db.insert(mailsSent).values(row).onConflictDoNothing().returning({ key: mailsSent.key });
    return rows.length > 0;
  },

  async releaseMail(db: Executor, key: string): Promise<void> {
    await db.delete(mailsSent).where(eq(mailsSent.key, key));
  },

  /**
   * Active renewing subscriptions of a plan in months that renew between `from` and `to` and whose
   * period has no reminder yet (its key as mails.ts makes it: `renewal_reminder:<id>:<renewsAt in ms>`).
   */
  subscriptionsToRemind: (db: Executor, from: Date, to: Date, limit: number) =>
    db
      .select()
      .from(subscriptions)
      .where(
        and(
          eq(subscriptions.status, 'active'),
          isNotNull(subscriptions.periodMonths),
          eq(subscriptions.cancelAtPeriodEnd, false),
          isNotNull(subscriptions.email),
          gte(subscriptions.renewsAt, from),
          lte(subscriptions.renewsAt, to),
          sql`not exists (select 1 from payment.mails_sent m where m.key = 'renewal_reminder:' || ${subscriptions.id} || ':' || (extract(epoch from ${subscriptions.renewsAt}) * 1000)::bigint)`,
        ),
      )
      .orderBy(asc(subscriptions.renewsAt))
      .limit(limit),

  async guestMerge(db: Executor, eventId: string): Promise<typeof guestMerges.$inferSelect | null> {
    const [row] = await db.select().from(guestMerges).where(eq(guestMerges.eventId, eventId));
    return row ?? null;
  },

  async insertGuestMerge(db: Executor, row: typeof guestMerges.$inferInsert): Promise<void> {
    await db.insert(guestMerges).values(row);
  },

  /**
   * Gives a guest's orders to a member. Paid and refunded ones are owed to the unlock service again
   * under their new owner (`unlock_synced_at` null), from `at` on. Answers how many moved.
   */
  async moveOrders(db: Executor, fromUserId: string, toUserId: string, at: Date): Promise<number> {
    // One first-purchase offer per person: beside the member's own, the guest's counts as a regular purchase.
    await db
      .update(orders)
      .set({ firstPurchaseOnly: false })
      .where(and(eq(orders.userId, fromUserId), eq(orders.firstPurchaseOnly, true), sql`exists (
        select 1 from payment.orders own where own.user_id = ${toUserId} and own.first_purchase_only and own.status in ('succeeded', 'partially_refunded', 'refunded'))`));
    const moved = await db
      .update(orders)
      .set({
        userId: toUserId,
        updatedAt: at,
        unlockSyncedAt: sql`case when ${orders.status} in ('succeeded', 'partially_refunded', 'refunded') then null else ${orders.unlockSyncedAt} end`,
      })
      .where(eq(orders.userId, fromUserId))
      .returning({ id: orders.id });
    return moved.length;
  },

  /** Gives a guest's subscriptions, live and ended, to a member; at most one of them may be live by then. */
  async moveSubscriptions(db: Executor, fromUserId: string, toUserId: string, at: Date): Promise<number> {
    const moved = await db
      .update(subscriptions)
      .set({ userId: toUserId, updatedAt: at })
      .where(eq(subscriptions.userId, fromUserId))
      .returning({ id: subscriptions.id });
    return moved.length;
  },
};
