import { and, asc, desc, eq, gt, gte, lte, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
import { bonusLots, checkins, guestMerges, ledger, reversals, revokedUnlocks, unlocks, vip, wallets, type LedgerKind } from './schema.ts';

export type Wallet = typeof wallets.$inferSelect;
export type LedgerEntry = typeof ledger.$inferSelect;
export type BonusLot = typeof bonusLots.$inferSelect;
export type VipRow = typeof vip.$inferSelect;
export type CheckinRow = typeof checkins.$inferSelect;
export type GuestMerge = typeof guestMerges.$inferSelect;
export type ReversalRow = typeof reversals.$inferSelect;
export type UnlockRow = typeof unlocks.$inferSelect;

/** The only code that knows the unlock service's tables. */
export const unlockRepository = {
  /** Creates the wallet when it is missing, then locks it until the transaction ends. */
  /**
   * The user's wallet, made empty on first use, locked until the transaction ends (an upsert's update
   * takes the row lock), with when the user's VIP ends: one statement for what every unlock needs.
   */
  async lockWallet(db: Executor, userId: string): Promise<Wallet & { vipUntil: Date | null }> {
    const [row] = await db
      .insert(wallets)
      .values({ userId })
      .onConflictDoUpdate({ target: wallets.userId, set: { userId: sql`excluded.user_id` } })
      .returning({
        userId: wallets.userId,
        paidCoins: wallets.paidCoins,
        bonusCoins: wallets.bonusCoins,
        updatedAt: wallets.updatedAt,
        vipUntil: sql<string | Date | null>`(select ${vip.activeUntil} from ${vip} where ${vip.userId} = ${userId})`,
      });
    return { ...row!, vipUntil: row!.vipUntil === null ? null : new Date(row!.vipUntil) };
  },

  /**
   * `lockWallet` and, in the same statement, the unlock row — unless the user's VIP is active at `at`
   * (a VIP leaves nothing to unlock). `claimed` is false when the episode was unlocked already (or
   * for a VIP). The caller's transaction takes the claim back if the wallet cannot pay.
   */
  async lockWalletClaimingUnlock(db: Executor, row: typeof unlocks.$inferInsert): Promise<Wallet & { vipUntil: Date | null; claimed: boolean }> {
    const at = row.unlockedAt.toISOString();
    const [locked] = await queryRows<{ user_id: string; paid_coins: number; bonus_coins: number; updated_at: string | Date; vip_until: string | Date | null; claimed: boolean }>(
      db,
      sql`with wallet as (
            insert into unlock.wallets (user_id) values (${row.userId})
            on conflict (user_id) do update set user_id = excluded.user_id
            returning user_id, paid_coins, bonus_coins, updated_at),
          claim as (
            insert into unlock.unlocks (user_id, episode_id, video_id, episode_number, price_coins, unlocked_at)
            select ${row.userId}, ${row.episodeId}, ${row.videoId}, ${row.episodeNumber}, ${row.priceCoins}, ${at}
             where not exists (select 1 from unlock.vip v where v.user_id = ${row.userId} and v.active_until > ${at})
            on conflict do nothing returning 1)
          select wallet.*, (select active_until from unlock.vip where user_id = ${row.userId}) as vip_until,
                 exists (select 1 from claim) as claimed
            from wallet`,
    );
    const { user_id, paid_coins, bonus_coins, updated_at, vip_until, claimed } = locked!;
    return {
      userId: user_id,
      paidCoins: paid_coins,
      bonusCoins: bonus_coins,
      updatedAt: new Date(updated_at),
      vipUntil: vip_until === null ? null : new Date(vip_until),
      claimed,
    };
  },

  async entryByReference(db: Executor, reference: string): Promise<LedgerEntry | null> {
    const [row] = await db.select().from(ledger).where(eq(ledger.reference, reference));
    return row ?? null;
  },

  /**
   * Appends a ledger entry and sets the wallet to the balances it leaves, in one statement: the
   * wallet always holds its last entry's balances.
   */
  async appendEntry(db: Executor, entry: Omit<LedgerEntry, 'id'> & { kind: LedgerKind }): Promise<void> {
    await db.execute(sql`
      with entry as (
        insert into unlock.ledger (user_id, kind, reference, paid_delta, bonus_delta, paid_balance, bonus_balance, created_at)
        values (${entry.userId}, ${entry.kind}, ${entry.reference}, ${entry.paidDelta}, ${entry.bonusDelta}, ${entry.paidBalance}, ${entry.bonusBalance}, ${entry.createdAt.toISOString()})
        returning user_id, paid_balance, bonus_balance, created_at)
      update unlock.wallets w set paid_coins = entry.paid_balance, bonus_coins = entry.bonus_balance, updated_at = entry.created_at
        from entry where w.user_id = entry.user_id`);
  },

  async insertLot(db: Executor, lot: Omit<BonusLot, 'id'>): Promise<void> {
    await db.insert(bonusLots).values(lot);
  },

  async lotGrantedBy(db: Executor, reference: string): Promise<BonusLot | null> {
    const [row] = await db.select().from(bonusLots).where(eq(bonusLots.grantedBy, reference));
    return row ?? null;
  },

  async setLotRemaining(db: Executor, lotId: number, remaining: number): Promise<void> {
    await db.update(bonusLots).set({ remaining }).where(eq(bonusLots.id, lotId));
  },

  /** Lots with coins left that may still be spent at `at`, the first to lapse first. */
  async spendableLots(db: Executor, userId: string, at: Date): Promise<BonusLot[]> {
    return db
      .select()
      .from(bonusLots)
      .where(and(eq(bonusLots.userId, userId), gt(bonusLots.remaining, 0), gt(bonusLots.expiresAt, at)))
      .orderBy(asc(bonusLots.expiresAt), asc(bonusLots.id));
  },

  async lapsedLots(db: Executor, userId: string, at: Date): Promise<BonusLot[]> {
    return db
      .select()
      .from(bonusLots)
      .where(and(eq(bonusLots.userId, userId), gt(bonusLots.remaining, 0), lte(bonusLots.expiresAt, at)))
      .orderBy(asc(bonusLots.expiresAt), asc(bonusLots.id));
  },

  async usersWithLapsedLots(db: Executor, at: Date, limit: number): Promise<string[]> {
    const rows = await db
      .selectDistinct({ userId: bonusLots.userId })
      .from(bonusLots)
      .where(and(gt(bonusLots.remaining, 0), lte(bonusLots.expiresAt, at)))
      .limit(limit);
    return rows.map((row) => row.userId);
  },

  async isUnlocked(db: Executor, userId: string, episodeId: string): Promise<boolean> {
    const [row] = await db
      .select({ episodeId: unlocks.episodeId })
      .from(unlocks)
      .where(and(eq(unlocks.userId, userId), eq(unlocks.episodeId, episodeId)));
    return Boolean(row);
  },

  async unlockedNumbers(db: Executor, userId: string, videoId: string): Promise<number[]> {
    const rows = await db
      .select({ number: unlocks.episodeNumber })
      .from(unlocks)
      .where(and(eq(unlocks.userId, userId), eq(unlocks.videoId, videoId)))
      .orderBy(asc(unlocks.episodeNumber));
    return rows.map((row) => row.number);
  },

  /** One row per series, the most recently unlocked first. */
  async unlockedVideosPage(db: Executor, userId: string, offset: number, limit: number): Promise<{ videoId: string; episodes: number[] }[]> {
    const lastUnlock = sql`max(${unlocks.unlockedAt})`;
    return db
      .select({
        videoId: unlocks.videoId,
        episodes: sql<number[]>`array_agg(${unlocks.episodeNumber} order by ${unlocks.episodeNumber})`,
      })
      .from(unlocks)
      .where(eq(unlocks.userId, userId))
      .groupBy(unlocks.videoId)
      .orderBy(desc(lastUnlock), asc(unlocks.videoId))
      .offset(offset)
      .limit(limit);
  },

  /**
   * A viewer's coins (bonus coins of lots lapsed by `at` no longer count, though the sweep has not
   * written them off yet), when the next lot lapses, and VIP, in one statement: `GET /api/user` and a
   * series page ask it of every viewer, and on the embedded database each statement is the cost.
   */
  async standingOf(
    db: Executor,
    userId: string,
    at: Date,
  ): Promise<{ paidCoins: number; bonusCoins: number; nextLapseAt: number | null; vip: Pick<VipRow, 'planId' | 'activeUntil' | 'cancelAtPeriodEnd'> | null }> {
    const iso = at.toISOString();
    const [row] = await queryRows<{
      paid_coins: number | null;
      bonus_coins: number | string | null;
      next_lapse_at: number | string | null;
      plan_id: string | null;
      active_until: Date | string | null;
      cancel_at_period_end: boolean | null;
    }>(
      db,
      sql`select w.paid_coins,
            w.bonus_coins - coalesce((select sum(lot.remaining) from unlock.bonus_lots lot
              where lot.user_id = ${userId} and lot.remaining > 0 and lot.expires_at <= ${iso}), 0) as bonus_coins,
            (select extract(epoch from min(lot.expires_at)) * 1000 from unlock.bonus_lots lot
              where lot.user_id = ${userId} and lot.remaining > 0 and lot.expires_at > ${iso}) as next_lapse_at,
            v.plan_id, v.active_until, v.cancel_at_period_end
          from (select 1) as one
          left join unlock.wallets w on w.user_id = ${userId}
          left join unlock.vip v on v.user_id = ${userId}`,
    );
    const { paid_coins, bonus_coins, next_lapse_at, plan_id, active_until, cancel_at_period_end } = row!;
    // No wallet yet: no coins.
    const coins =
      paid_coins === null
        ? { paidCoins: 0, bonusCoins: 0, nextLapseAt: null }
        : { paidCoins: paid_coins, bonusCoins: Number(bonus_coins), nextLapseAt: next_lapse_at === null ? null : Number(next_lapse_at) };
    return { ...coins, vip: plan_id === null ? null : { planId: plan_id, activeUntil: new Date(active_until!), cancelAtPeriodEnd: Boolean(cancel_at_period_end) } };
  },

  async setVip(db: Executor, row: Omit<VipRow, 'updatedAt'>, at: Date): Promise<void> {
    const { userId, ...state } = row;
    await db
      .insert(vip)
      .values({ ...row, updatedAt: at })
      .onConflictDoUpdate({ target: vip.userId, set: { ...state, updatedAt: at } });
  },

  async endVip(db: Executor, userId: string): Promise<void> {
    await db.delete(vip).where(eq(vip.userId, userId));
  },

  /**
   * Where the user's check-ins stand: the latest day claimed and its streak (the one a new day's
   * streak continues), and when they last checked in at all (a guest's days merged in keep their times).
   */
  async lastCheckin(db: Executor, userId: string): Promise<{ day: string; streak: number; checkedInAt: Date } | null> {
    const [row] = await db
      .select({
        day: checkins.day,
        streak: checkins.streak,
        checkedInAt: sql`(select max(c.checked_in_at) from unlock.checkins c where c.user_id = ${userId})`.mapWith(checkins.checkedInAt),
      })
      .from(checkins)
      .where(eq(checkins.userId, userId))
      .orderBy(desc(checkins.day))
      .limit(1);
    return row ?? null;
  },

  async insertCheckin(db: Executor, row: CheckinRow): Promise<void> {
    await db.insert(checkins).values(row);
  },

  /** Gives a guest's spendable lots to the member it merged into: the same lots, expiry and all. */
  async moveLots(db: Executor, fromUserId: string, toUserId: string): Promise<void> {
    await db.update(bonusLots).set({ userId: toUserId }).where(and(eq(bonusLots.userId, fromUserId), gt(bonusLots.remaining, 0)));
  },

  /** Moves a guest's unlocks to the member, but for episodes the member has unlocked too (dropped). Answers how many moved. */
  handOverUnlocks: (db: Executor, fromUserId: string, toUserId: string) => handOverRows(db, 'unlocks', 'episode_id', fromUserId, toUserId),

  /**
   * Moves a guest's check-ins to the member, but for days the member checked in too (dropped): moved,
   * not written, they keep their times, so the member's next check-in waits 20 hours after either's last.
   */
  handOverCheckins: (db: Executor, fromUserId: string, toUserId: string) => handOverRows(db, 'checkins', 'day', fromUserId, toUserId),

  async lastEntryId(db: Executor, userId: string): Promise<number | null> {
    const [row] = await db.select({ id: sql<string | number | null>`max(${ledger.id})` }).from(ledger).where(eq(ledger.userId, userId));
    return row?.id == null ? null : Number(row.id);
  },

  async mergeByReference(db: Executor, reference: string): Promise<GuestMerge | null> {
    const [row] = await db.select().from(guestMerges).where(eq(guestMerges.reference, reference));
    return row ?? null;
  },

  async insertMerge(db: Executor, row: Omit<GuestMerge, 'id'>): Promise<void> {
    await db.insert(guestMerges).values(row);
  },

  /** Whether `guestId` has ever merged into `memberId`. */
  async hasMergedInto(db: Executor, guestId: string, memberId: string): Promise<boolean> {
    const [row] = await db
      .select({ id: guestMerges.id })
      .from(guestMerges)
      .where(and(eq(guestMerges.guestId, guestId), eq(guestMerges.memberId, memberId)))
      .limit(1);
    return Boolean(row);
  },

  /**
   * Whose wallet holds what ledger entry `entryId` of `userId` brought: the member of the first merge
   * that carried it (a merge carries the guest's entries up to its `last_entry_id`), else the user's own.
   */
  async holderOf(db: Executor, userId: string, entryId: number): Promise<string> {
    const [row] = await db
      .select({ memberId: guestMerges.memberId })
      .from(guestMerges)
      .where(and(eq(guestMerges.guestId, userId), gte(guestMerges.lastEntryId, entryId)))
      .orderBy(asc(guestMerges.id))
      .limit(1);
    return row?.memberId ?? userId;
  },

  async reversalOf(db: Executor, reference: string): Promise<ReversalRow | null> {
    const [row] = await db.select().from(reversals).where(eq(reversals.reference, reference));
    return row ?? null;
  },

  async insertReversal(db: Executor, row: typeof reversals.$inferInsert): Promise<void> {
    await db.insert(reversals).values(row);
  },

  async updateReversal(db: Executor, reference: string, changes: Pick<ReversalRow, 'paidCoins' | 'bonusCoins' | 'unlocksRevoked'>): Promise<void> {
    await db.update(reversals).set(changes).where(eq(reversals.reference, reference));
  },

  async markRestored(db: Executor, reference: string, at: Date): Promise<void> {
    await db.update(reversals).set({ state: 'restored', restoredAt: at }).where(eq(reversals.reference, reference));
  },

  /** The user's latest unlock that cost coins, made at or after `since`: the next to revoke. */
  async latestPaidUnlockSince(db: Executor, userId: string, since: Date): Promise<UnlockRow | null> {
    const [row] = await db
      .select()
      .from(unlocks)
      .where(and(eq(unlocks.userId, userId), gt(unlocks.priceCoins, 0), gte(unlocks.unlockedAt, since)))
      .orderBy(desc(unlocks.unlockedAt), desc(unlocks.episodeId))
      .limit(1);
    return row ?? null;
  },

  /**
   * The ledger reference of an unlock about to be charged: `unlock:<user>:<episode>`, and for an
   * episode unlocked again after refunds revoked it (its first entry stays in the ledger) the number
   * of those revokes after it, which only grows: each unlock of one episode is its own entry.
   */
  async unlockReference(db: Executor, userId: string, episodeId: string): Promise<string> {
    const first = `unlock:${userId}:${episodeId}`;
    const [again] = await queryRows<{ revokes: number }>(
      db,
      sql`select count(*)::int as revokes from unlock.revoked_unlocks
           where user_id = ${userId} and episode_id = ${episodeId} and exists (select 1 from unlock.ledger where reference = ${first})`,
    );
    return again!.revokes > 0 ? `${first}:${again!.revokes}` : first;
  },

  /** Removes the unlock and keeps it as the reversal revoked it. */
  async revokeUnlock(db: Executor, reversal: string, row: UnlockRow, at: Date): Promise<void> {
    await db.delete(unlocks).where(and(eq(unlocks.userId, row.userId), eq(unlocks.episodeId, row.episodeId)));
    await db.insert(revokedUnlocks).values({ reversal, ...row, revokedAt: at });
  },

  /** What a reversal revoked and has not given back, earliest unlocked first. */
  revokedBy: (db: Executor, reversal: string) =>
    db
      .select()
      .from(revokedUnlocks)
      .where(and(eq(revokedUnlocks.reversal, reversal), sql`${revokedUnlocks.restoredAt} is null`))
      .orderBy(asc(revokedUnlocks.unlockedAt), asc(revokedUnlocks.episodeId)),

  /** Unlocks a revoked episode again as it was; false when the user has it already (bought again). */
  async restoreUnlock(db: Executor, row: typeof revokedUnlocks.$inferSelect, at: Date): Promise<boolean> {
    const { userId, episodeId, videoId, episodeNumber, priceCoins, unlockedAt } = row;
    const inserted = await db.insert(unlocks).values({ userId, episodeId, videoId, episodeNumber, priceCoins, unlockedAt }).onConflictDoNothing().returning({ episodeId: unlocks.episodeId });
    await db
      .update(revokedUnlocks)
      .set({ restoredAt: at })
      .where(and(eq(revokedUnlocks.reversal, row.reversal), eq(revokedUnlocks.episodeId, episodeId)));
    return inserted.length > 0;
  },
};

/** Gives `fromUserId`'s rows of a per-user table to `toUserId`, dropping those whose `key` the receiver has already. Answers how many moved. */
async function handOverRows(db: Executor, table: 'unlocks' | 'checkins', key: 'episode_id' | 'day', fromUserId: string, toUserId: string): Promise<number> {
  const rows = sql`unlock.${sql.identifier(table)}`;
  const column = sql.identifier(key);
  const moved = await queryRows(
    db,
    sql`update ${rows} given set user_id = ${toUserId}
         where given.user_id = ${fromUserId}
           and not exists (select 1 from ${rows} own where own.user_id = ${toUserId} and own.${column} = given.${column})
        returning 1`,
  );
  await db.execute(sql`delete from ${rows} where user_id = ${fromUserId}`);
  return moved.length;
}
