import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor, type Role } from '@cliffhanger/platform';
import {
  accounts,
  emailVerifications,
  favorites,
  history,
  identities,
  knownDevices,
  loginThrottle,
  oauthCodes,
  oauthFlows,
  passwordResets,
  sessions,
} from './schema.ts';

/** The NOTIFY channel on which the process that ended a user's sessions tells the others; the payload is the user's id. */
export const SESSIONS_ENDED = 'cliffhanger_sessions_ended';

export type Account = typeof accounts.$inferSelect;
export type HistoryRow = typeof history.$inferSelect;
export type OAuthFlow = typeof oauthFlows.$inferSelect;
export type OAuthCode = typeof oauthCodes.$inferSelect;
export type LoginThrottleRow = typeof loginThrottle.$inferSelect;

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
  async pruneSessions(db: Executor, idleDays: number): Promise<{ sessions: number; resets: number; signIns: number; security: number }> {
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
    // Verification links spent or expired, failed-login runs a day quiet, browsers not seen for a
    // year (their cookie has expired).
    const verifications = await queryRows(db, sql`delete from users.email_verifications where coalesce(used_at, expires_at) < now() - interval '1 day' returning 1`);
    const throttles = await queryRows(
      db,
      sql`delete from users.login_throttle where greatest(last_failure_at, coalesce(blocked_until, last_failure_at)) < now() - interval '1 day' returning 1`,
    );
    const devices = await queryRows(db, sql`delete from users.known_devices where last_login_at < now() - interval '366 days' returning 1`);
    return {
      sessions: sessions.length,
      resets: resets.length,
      signIns: flows.length + codes.length,
      security: verifications.length + throttles.length + devices.length,
    };
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

  /** The account, its row locked until the transaction ends (one resend of a verification link at a time). */
  async lockAccount(db: Executor, id: string): Promise<Account | null> {
    const [row] = await db.select().from(accounts).where(eq(accounts.id, id)).for('update');
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

  /**
   * Turns a guest into a member in place, so everything kept under its id stays (no password: it
   * signs in with a provider, which vouched for the email: `verifiedEmail`).
   */
  async promoteGuest(db: Executor, id: string, email: string, passwordHash: string | null, verifiedEmail: string | null): Promise<Account | null> {
    const [row] = await db
      .update(accounts)
      .set({ kind: 'member', email, passwordHash, verifiedEmail, registeredAt: new Date() })
      .where(and(eq(accounts.id, id), eq(accounts.kind, 'guest')))
      .returning();
    return row ?? null;
  },

  /** Sets (or, with null, removes) a member's password. */
  async setPassword(db: Executor, id: string, passwordHash: string | null): Promise<void> {
    await db.update(accounts).set({ passwordHash }).where(eq(accounts.id, id));
  },

  /** Marks the member's email verified, if it is still `email` (any case); null when it changed since. */
  async markEmailVerified(db: Executor, id: string, email: string): Promise<Account | null> {
    const [row] = await db
      .update(accounts)
      .set({ verifiedEmail: sql`${accounts.email}` })
      .where(and(eq(accounts.id, id), sql`lower(${accounts.email}) = lower(${email})`))
      .returning();
    return row ?? null;
  },

  async insertEmailVerification(db: Executor, row: typeof emailVerifications.$inferInsert): Promise<void> {
    await db.insert(emailVerifications).values(row);
  },

  /** How many verification links were made for a member since `since`, and when the oldest of them and the newest. */
  async verificationsSince(db: Executor, userId: string, since: Date): Promise<{ count: number; oldest: Date | null; newest: Date | null }> {
    const [row] = await db
      .select({ count: sql<number>`count(*)::int`, oldest: sql<string | null>`min(${emailVerifications.createdAt})`, newest: sql<string | null>`max(${emailVerifications.createdAt})` })
      .from(emailVerifications)
      .where(and(eq(emailVerifications.userId, userId), gt(emailVerifications.createdAt, since)));
    const date = (value: string | Date | null | undefined) => (value ? new Date(value) : null);
    return { count: row?.count ?? 0, oldest: date(row?.oldest), newest: date(row?.newest) };
  },

  /** Marks a live verification link used and answers whose it is and the address it was for; null when unknown, used or expired. */
  async consumeEmailVerification(db: Executor, tokenHash: string, now: Date): Promise<{ userId: string; email: string } | null> {
    const [row] = await db
      .update(emailVerifications)
      .set({ usedAt: now })
      .where(and(eq(emailVerifications.tokenHash, tokenHash), isNull(emailVerifications.usedAt), gt(emailVerifications.expiresAt, now)))
      .returning({ userId: emailVerifications.userId, email: emailVerifications.email });
    return row ?? null;
  },

  /** Spends every verification link of a member still unused. */
  async voidEmailVerifications(db: Executor, userId: string, now: Date): Promise<void> {
    await db.update(emailVerifications).set({ usedAt: now }).where(and(eq(emailVerifications.userId, userId), isNull(emailVerifications.usedAt)));
  },

  /**
   * The failed-login run of an email (its hash), locked until the transaction ends; a new run starts
   * at 0 failures. One upsert: a successful login deleting the row between an insert and a select
   * of it would leave nothing to lock.
   */
  async lockLoginThrottle(db: Executor, emailHash: string, now: Date): Promise<LoginThrottleRow> {
    const [row] = await db
      .insert(loginThrottle)
      .values({ emailHash, failures: 0, lastFailureAt: now })
      .onConflictDoUpdate({ target: loginThrottle.emailHash, set: { emailHash: sql`excluded.email_hash` } })
      .returning();
    return row!;
  },

  async saveLoginThrottle(db: Executor, row: LoginThrottleRow): Promise<void> {
    await db.update(loginThrottle).set(row).where(eq(loginThrottle.emailHash, row.emailHash));
  },

  async clearLoginThrottle(db: Executor, emailHash: string): Promise<void> {
    await db.delete(loginThrottle).where(eq(loginThrottle.emailHash, emailHash));
  },

  async isKnownDevice(db: Executor, deviceHash: string, userId: string): Promise<boolean> {
    const [row] = await db.select({ userId: knownDevices.userId }).from(knownDevices).where(and(eq(knownDevices.deviceHash, deviceHash), eq(knownDevices.userId, userId)));
    return Boolean(row);
  },

  async rememberDevice(db: Executor, deviceHash: string, userId: string, now: Date): Promise<void> {
    await db
      .insert(knownDevices)
      .values({ deviceHash, userId, lastLoginAt: now })
      .onConflictDoUpdate({ target: [knownDevices.deviceHash, knownDevices.userId], set: { lastLoginAt: now } });
  },

  /** Forgets every browser that logged in to a member (its password was someone else's). */
  async forgetDevices(db: Executor, userId: string): Promise<void> {
    await db.delete(knownDevices).where(eq(knownDevices.userId, userId));
  },

  async insertSession(db: Executor, tokenHash: string, userId: string): Promise<void> {
    await db.insert(sessions).values({ tokenHash, userId });
  },

  /**
   * The user of a session not revoked and used within `idleSeconds`, and whether its last use is
   * over an hour old (worth writing down). Times are the database's, as `last_used_at` is.
   */
  async liveSession(db: Executor, tokenHash: string, idleSeconds: number): Promise<{ userId: string; role: Role; touchDue: boolean } | null> {
    const [row] = await db
      .select({ userId: sessions.userId, role: accounts.role, touchDue: sql<boolean>`${sessions.lastUsedAt} < now() - interval '1 hour'` })
      .from(sessions)
      .innerJoin(accounts, eq(accounts.id, sessions.userId))
      .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt), sql`${sessions.lastUsedAt} > now() - ${idleSeconds}::float8 * interval '1 second'`));
    return row ?? null;
  },

  async touchSession(db: Executor, tokenHash: string): Promise<void> {
    await db.update(sessions).set({ lastUsedAt: sql`now()` }).where(eq(sessions.tokenHash, tokenHash));
  },

  /** Tells every process (their watchEndedSessions) that `userId`'s sessions ended; sent once what ended them has committed. */
  async announceSessionsEnded(db: Executor, userId: string): Promise<void> {
    await db.execute(sql`select pg_notify(${SESSIONS_ENDED}, ${userId})`);
  },

  /** Ends one session; answers whose it was, or null when it was not live. */
  async revokeSession(db: Executor, tokenHash: string): Promise<string | null> {
    const [ended] = await db
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)))
      .returning({ userId: sessions.userId });
    return ended?.userId ?? null;
  },

  async revokeAllSessions(db: Executor, userId: string): Promise<number> {
    const ended = await db
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
      .returning({ tokenHash: sessions.tokenHash });
    return ended.length;
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

  async favoritesPage(db: Executor, userId: string, offset: number, limit: number) {
    return db
      .select({ videoId: favorites.videoId, createdAt: favorites.createdAt })
      .from(favorites)
      .where(eq(favorites.userId, userId))
      .orderBy(desc(favorites.createdAt), favorites.videoId)
      .offset(offset)
      .limit(limit);
  },

  async historyPage(db: Executor, userId: string, offset: number, limit: number): Promise<HistoryRow[]> {
    return db.select().from(history).where(eq(history.userId, userId)).orderBy(desc(history.updatedAt), history.videoId).offset(offset).limit(limit);
  },

  /** A viewer's own relation to one series in one statement (a series page asks it of every viewer): in their list, and where they stopped. */
  async viewerOfSeries(db: Executor, userId: string, videoId: string): Promise<{ favorited: boolean; resume: { episodeId: string; positionSeconds: number } | null }> {
    const [row] = await queryRows<{ favorited: boolean; episode_id: string | null; position_seconds: number | null }>(
      db,
      sql`select exists (select 1 from users.favorites f where f.user_id = ${userId} and f.video_id = ${videoId}) as favorited, h.episode_id, h.position_seconds
          from (select 1) as one left join users.history h on h.user_id = ${userId} and h.video_id = ${videoId}`,
    );
    return { favorited: row!.favorited, resume: row!.episode_id === null ? null : { episodeId: row!.episode_id, positionSeconds: Number(row!.position_seconds) } };
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
