import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
import { accounts, favorites, history, identities, oauthCodes, oauthFlows, passwordResets, sessions } from './schema.ts';

export type Account = typeof accounts.$inferSelect;
export type HistoryRow = typeof history.$inferSelect;
export type OAuthFlow = typeof oauthFlows.$inferSelect;
export type OAuthCode = typeof oauthCodes.$inferSelect;

/** The only code that knows the user service's tables. */
export const userRepository = {
  /**
   * Guests that never did anything and can no longer be reached: made over `days` ago, no session
   * used in that time, nothing in their list or history. Coins and VIP are another service's to say.
   */
  async idleGuests(db: Executor, days: number, limit: number): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      db,
      sql`select u.id from users.users u
           where u.kind = 'guest' and u.created_at < now() - make_interval(days => ${days})
             and not exists (select 1 from users.sessions s where s.user_id = u.id and s.revoked_at is null and s.last_used_at > now() - make_interval(days => ${days}))
             and not exists (select 1 from users.favorites f where f.user_id = u.id)
             and not exists (select 1 from users.history h where h.user_id = u.id)
           order by u.created_at limit ${limit}`,
    );
    return rows.map((row) => row.id);
  },

  /**
   * Deletes sessions no token can use any more (revoked, or unused for `idleDays`) and reset links
   * spent or expired, a day after they stopped working. Answers how many of each.
   */
  async pruneSessions(db: Executor, idleDays: number): Promise<{ sessions: number; resets: number; signIns: number }> {
    const sessions = await queryRows(
      db,
      sql`delete from users.sessions
           where (revoked_at is not null and revoked_at < now() - interval '1 day')
              or last_used_at < now() - make_interval(days => ${idleDays}) - interval '1 day'
       returning 1`,
    );
    const resets = await queryRows(
      db,
      sql`delete from users.password_resets
           where coalesce(used_at, expires_at) < now() - interval '1 day'
       returning 1`,
    );
    // Social sign-ins nobody finished: their state or one-time code expired.
    const flows = await queryRows(db, sql`delete from users.oauth_flows where expires_at < now() - interval '1 day' returning 1`);
    const codes = await queryRows(db, sql`delete from users.oauth_codes where expires_at < now() - interval '1 day' returning 1`);
    return { sessions: sessions.length, resets: resets.length, signIns: flows.length + codes.length };
  },

  /** Deletes guests (never members) and their sessions. */
  async deleteGuests(db: Executor, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    await db.execute(sql`delete from users.sessions where user_id = any(${sql.param(ids)}::text[])`);
    const deleted = await queryRows(db, sql`delete from users.users where kind = 'guest' and id = any(${sql.param(ids)}::text[]) returning id`);
    return deleted.length;
  },

  async updateSettings(db: Executor, id: string, settings: { autoUnlock?: boolean }): Promise<Account | null> {
    if (settings.autoUnlock === undefined) return this.accountById(db, id);
    const [row] = await db.update(accounts).set({ autoUnlock: settings.autoUnlock }).where(eq(accounts.id, id)).returning();
    return row ?? null;
  },

  async accountById(db: Executor, id: string): Promise<Account | null> {
    const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
    return row ?? null;
  },

  async accountByEmail(db: Executor, email: string): Promise<Account | null> {
    const [row] = await db.select().from(accounts).where(sql`lower(${accounts.email}) = lower(${email})`);
    return row ?? null;
  },

  async insertAccount(db: Executor, account: typeof accounts.$inferInsert): Promise<Account> {
    const [row] = await db.insert(accounts).values(account).returning();
    return row!;
  },

  /** Turns a guest into a member in place, so everything kept under its id stays (no password: it signs in with a provider). */
  async promoteGuest(db: Executor, id: string, email: string, passwordHash: string | null): Promise<Account | null> {
    const [row] = await db
      .update(accounts)
      .set({ kind: 'member', email, passwordHash, registeredAt: new Date() })
      .where(and(eq(accounts.id, id), eq(accounts.kind, 'guest')))
      .returning();
    return row ?? null;
  },

  async setPassword(db: Executor, id: string, passwordHash: string): Promise<void> {
    await db.update(accounts).set({ passwordHash }).where(eq(accounts.id, id));
  },

  async insertSession(db: Executor, tokenHash: string, userId: string): Promise<void> {
    await db.insert(sessions).values({ tokenHash, userId });
  },

  /**
   * The user of a session not revoked and used within `idleSeconds`, and whether its last use is
   * over an hour old (worth writing down). Times are the database's, as `last_used_at` is.
   */
  async liveSession(db: Executor, tokenHash: string, idleSeconds: number): Promise<{ userId: string; touchDue: boolean } | null> {
    const [row] = await db
      .select({ userId: sessions.userId, touchDue: sql<boolean>`${sessions.lastUsedAt} < now() - interval '1 hour'` })
      .from(sessions)
      .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt), sql`${sessions.lastUsedAt} > now() - ${idleSeconds}::float8 * interval '1 second'`));
    return row ?? null;
  },

  async touchSession(db: Executor, tokenHash: string): Promise<void> {
    await db.update(sessions).set({ lastUsedAt: sql`now()` }).where(eq(sessions.tokenHash, tokenHash));
  },

  async revokeSession(db: Executor, tokenHash: string): Promise<void> {
    await db.update(sessions).set({ revokedAt: new Date() }).where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)));
  },

  async revokeAllSessions(db: Executor, userId: string): Promise<void> {
    await db.update(sessions).set({ revokedAt: new Date() }).where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
  },

  async insertPasswordReset(db: Executor, tokenHash: string, userId: string, expiresAt: Date): Promise<void> {
    await db.insert(passwordResets).values({ tokenHash, userId, expiresAt });
  },

  /** Marks every reset token of a member still unused as used: one reset spends every link mailed before it. */
  async voidPasswordResets(db: Executor, userId: string): Promise<void> {
    await db.update(passwordResets).set({ usedAt: new Date() }).where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
  },

  /** Marks a live reset token used and answers its user; null when unknown, used or expired. */
  async consumePasswordReset(db: Executor, tokenHash: string): Promise<string | null> {
    const [row] = await db
      .update(passwordResets)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, new Date())))
      .returning({ userId: passwordResets.userId });
    return row?.userId ?? null;
  },

  async addFavorite(db: Executor, userId: string, videoId: string): Promise<boolean> {
    const added = await db.insert(favorites).values({ userId, videoId }).onConflictDoNothing().returning();
    return added.length > 0;
  },

  async removeFavorite(db: Executor, userId: string, videoId: string): Promise<boolean> {
    const removed = await db.delete(favorites).where(and(eq(favorites.userId, userId), eq(favorites.videoId, videoId))).returning();
    return removed.length > 0;
  },

  async isFavorite(db: Executor, userId: string, videoId: string): Promise<boolean> {
    const [row] = await db.select({ videoId: favorites.videoId }).from(favorites).where(and(eq(favorites.userId, userId), eq(favorites.videoId, videoId)));
    return Boolean(row);
  },

  async favoritesPage(db: Executor, userId: string, offset: number, limit: number) {
    return db
      .select({ videoId: favorites.videoId, createdAt: favorites.createdAt })
      .from(favorites)
      .where(eq(favorites.userId, userId))
      .orderBy(desc(favorites.createdAt), favorites.videoId)
      .offset(offset)
      .limit(limit);
  },

  async upsertHistory(db: Executor, row: Omit<HistoryRow, 'updatedAt'>): Promise<void> {
    await db
      .insert(history)
      .values({ ...row, updatedAt: new Date() })
      .onConflictDoUpdate({
        target: [history.userId, history.videoId],
        set: { episodeId: row.episodeId, episodeNumber: row.episodeNumber, positionSeconds: row.positionSeconds, updatedAt: new Date() },
      });
  },

  async historyPage(db: Executor, userId: string, offset: number, limit: number): Promise<HistoryRow[]> {
    return db.select().from(history).where(eq(history.userId, userId)).orderBy(desc(history.updatedAt), history.videoId).offset(offset).limit(limit);
  },

  async historyOf(db: Executor, userId: string, videoId: string): Promise<HistoryRow | null> {
    const [row] = await db.select().from(history).where(and(eq(history.userId, userId), eq(history.videoId, videoId)));
    return row ?? null;
  },

  /** The member a provider account signs in as, if it was linked. */
  async accountOfIdentity(db: Executor, provider: string, subject: string): Promise<Account | null> {
    const [row] = await db
      .select({ account: accounts })
      .from(identities)
      .innerJoin(accounts, eq(accounts.id, identities.userId))
      .where(and(eq(identities.provider, provider), eq(identities.subject, subject)));
    return row?.account ?? null;
  },

  async linkIdentity(db: Executor, provider: string, subject: string, userId: string): Promise<void> {
    await db.insert(identities).values({ provider, subject, userId });
  },

  async insertOAuthFlow(db: Executor, flow: OAuthFlow): Promise<void> {
    await db.insert(oauthFlows).values(flow);
  },

  /** Takes a sign-in's state out, whether or not it expired: a state is good for one callback only. */
  async takeOAuthFlow(db: Executor, stateHash: string, provider: string): Promise<OAuthFlow | null> {
    const [row] = await db.delete(oauthFlows).where(and(eq(oauthFlows.stateHash, stateHash), eq(oauthFlows.provider, provider))).returning();
    return row ?? null;
  },

  async insertOAuthCode(db: Executor, code: OAuthCode): Promise<void> {
    await db.insert(oauthCodes).values(code);
  },

  /** Takes a one-time code out, whether or not it expired or is then refused: it is good for one exchange only. */
  async takeOAuthCode(db: Executor, codeHash: string): Promise<OAuthCode | null> {
    const [row] = await db.delete(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).returning();
    return row ?? null;
  },

  /** Moves a guest's favorites and history onto the member who just logged in, keeping the newer history. */
  async mergeGuestInto(db: Executor, guestId: string, memberId: string): Promise<void> {
    await queryRows(db, sql`
      insert into users.favorites (user_id, video_id, created_at)
      select ${memberId}, video_id, created_at from users.favorites where user_id = ${guestId}
      on conflict do nothing`);
    await queryRows(db, sql`
      insert into users.history (user_id, video_id, episode_id, episode_number, position_seconds, updated_at)
      select ${memberId}, video_id, episode_id, episode_number, position_seconds, updated_at from users.history where user_id = ${guestId}
      on conflict (user_id, video_id) do update set
        episode_id = excluded.episode_id, episode_number = excluded.episode_number,
        position_seconds = excluded.position_seconds, updated_at = excluded.updated_at
      where users.history.updated_at < excluded.updated_at`);
    await db.delete(favorites).where(eq(favorites.userId, guestId));
    await db.delete(history).where(eq(history.userId, guestId));
  },
};
