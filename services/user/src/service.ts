import { randomUUID } from 'node:crypto';
import {
  appendEvent,
  Conflict,
  Invalid,
  NotFound,
  requireUser,
  Unauthorized,
  UserFacingError,
  type Caller,
  type Database,
  type EventBus,
  type Executor,
  type Logger,
  type Mailer,
  type Page,
  type RequestContext,
  TooManyRequests,
  TtlCache,
} from '@cliffhanger/platform';
import { afterFailure, secondsBlocked } from './login-throttle.ts';
import { RESET_TOKEN_MINUTES, resetMail, throttleNoticeMail, VERIFY_TOKEN_HOURS, verificationMail } from './mails.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { AccountStanding, CatalogClient, VideoCard } from './ports.ts';
import { SESSIONS_ENDED, userRepository as repo, type Account } from './repository.ts';
import { hashToken, looksLikeToken, newToken } from './tokens.ts';
import { createWatchPositions } from './watch-positions.ts';

export { RESET_TOKEN_MINUTES, VERIFY_TOKEN_HOURS };
/** How long another process may still show an account's old kind or email. */
export const ACCOUNT_CACHE_MS = 5_000;
/**
 * How long a token read from the database is trusted without reading it again: longer than a player's
 * heartbeat (5 s), so a watching viewer's beats do not each read their session. Every way sessions
 * end (logout, a password set, a role change, revoke-all, a guest merged or promoted, a takeover)
 * tells every process at once (repo.announceSessionsEnded); this bounds only a change made behind the site's back.
 */
export const SESSION_CACHE_MS = 60_000;
export const WRONG_CREDENTIALS = 'Incorrect email or password';
export const EXPIRED_VERIFICATION = 'This verification link is invalid or has expired';
/** Resending a verification link: at most one a minute, and so many a day. */
export const VERIFICATION_RESEND_SECONDS = 60;
export const VERIFICATIONS_PER_DAY = 5;
/** How long a heartbeat trusts what it learnt of an episode (its series and number), which never change. */
const EPISODE_REF_CACHE_MS = 60_000;

export interface User {
  id: string;
  kind: 'guest' | 'member';
  email: string | null;
  /** Whether the member proved the email theirs (a mailed link, a password reset, Google or Facebook); false for guests. */
  emailVerified: boolean;
  /** Spendable coins, paid and bonus together; `bonusCoins` is the part that may expire. */
  coins: number;
  bonusCoins: number;
  vip: { planId: string; renewsAt: string; cancelAtPeriodEnd: boolean } | null;
  settings: UserSettings;
}

export interface UserSettings {
  /** Playing on into a locked episode with enough coins unlocks it without asking. */
  autoUnlock: boolean;
}

export interface HistoryEntry {
  video: VideoCard;
  episode: { id: string; number: number };
  positionSeconds: number;
  updatedAt: string;
}

export interface UserServiceDeps {
  database: Database;
  bus: EventBus;
  mailer: Mailer;
  catalog: CatalogClient;
  standing: AccountStanding;
  logger: Logger;
  /** Where links in mail point, e.g. https://cliffhanger.example. */
  publicUrl: string;
  /** A session unused this many days is refused (SESSION_IDLE_DAYS). */
  sessionIdleDays: number;
  /** The clock of tokens' expiry, resends and the login throttle; tests move it. */
  now?: () => Date;
}

/** A signed-in user and the token that proves it, as the gateway hands them to the client. */
export interface Session {
  user: User;
  token: string;
  /** The browser's device cookie, now known to this member (routes.ts sets it): a password login or reset. */
  device?: string;
}

/** Whether a member's email is the address they proved theirs (0005_email_verification.sql). */
export const emailVerified = (account: Account): boolean =>
  Boolean(account.email && account.verifiedEmail && account.email.toLowerCase() === account.verifiedEmail.toLowerCase());

/** The key of an email's failed-login run: the SHA-256 of it lower-cased (an unknown email has one too). */
const throttleKey = (email: string) => hashToken(email.toLowerCase());

export const isUniqueViolation = (error: unknown): boolean => {
  const cause = (error as { cause?: { code?: string } })?.cause ?? error;
  return (cause as { code?: string })?.code === '23505';
};

export function createUserService(deps: UserServiceDeps) {
  const { database, bus, mailer, catalog, standing, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const idleSeconds = deps.sessionIdleDays * 86_400;
  /** Mails still being sent: they go out after the answer, and shutdown waits for them. */
  const mailing = new Set<Promise<void>>();
  const sessionCache = new TtlCache<string, Caller>(SESSION_CACHE_MS, 50_000);
  const accountCache = new TtlCache<string, Account>(ACCOUNT_CACHE_MS, 50_000);
  // Sessions forgotten so far: a token read that began before one is answered but not kept (it may be the ended session).
  let forgotten = 0;

  /** Forgets the cached sessions of `userId` (null: of everyone, when notices may have been lost). */
  function forgetSessions(userId: string | null): void {
    forgotten += 1;
    if (userId === null) sessionCache.clear();
    else sessionCache.deleteWhere((caller) => caller.userId === userId);
  }

  /** Sessions of `userId` ended (committed): forgotten here, and every other process told. */
  async function sessionsEnded(userId: string): Promise<void> {
    forgetSessions(userId);
    await repo.announceSessionsEnded(database.db, userId);
  }
  // Every heartbeat names its episode: ask the catalog once a minute per episode, not every 5 seconds.
  const episodeRefs = new TtlCache<string, { videoId: string; number: number }>(EPISODE_REF_CACHE_MS, 10_000);
  const positions = createWatchPositions({ database, bus, now });

  async function accountOf(userId: string): Promise<Account | null> {
    const cached = accountCache.get(userId);
    if (cached) return cached;
    const account = await repo.accountById(database.db, userId);
    if (account) accountCache.set(userId, account);
    return account;
  }

  async function present(account: Account): Promise<User> {
    const { coins, bonusCoins, vip } = await standing.standingOf(account.id);
    return {
      id: account.id,
      kind: account.kind,
      email: account.email,
      emailVerified: emailVerified(account),
      coins,
      bonusCoins,
      vip,
      settings: { autoUnlock: account.autoUnlock },
    };
  }

  /** Sends a mail after the answer (a mail server that hangs delays nobody); a failure is logged, without the mail. */
  function mailLater(what: string, send: () => Promise<void>): void {
    const sending = new Promise<void>((resolve) => setImmediate(resolve))
      .then(send)
      .catch((error: unknown) => logger.error({ err: error }, `${what} mail failed`))
      .finally(() => mailing.delete(sending));
    mailing.add(sending);
  }

  /** Keeps a verification link for the member's current email (only its hash); `mail` sends it, once that is committed. */
  async function verificationLink(db: Executor, account: Account): Promise<{ mail(): void }> {
    const email = account.email!;
    const { token, hash } = newToken();
    const at = now();
    await repo.insertEmailVerification(db, { tokenHash: hash, userId: account.id, email, createdAt: at, expiresAt: new Date(at.getTime() + VERIFY_TOKEN_HOURS * 3_600_000) });
    return { mail: () => mailLater('email verification', () => mailer.send(verificationMail(deps.publicUrl, email, token))) };
  }

  /** The browser's device cookie (a new one when it had none) remembered as having logged in to `userId`. */
  async function rememberDevice(userId: string, device: string | undefined): Promise<string> {
    const token = looksLikeToken(device) ? device : newToken().token;
    await repo.rememberDevice(database.db, hashToken(token), userId, now());
    return token;
  }

  /**
   * Counts a password login from a browser unknown to the account before its password is checked,
   * or refuses it while the email's run of failures blocks such logins (login-throttle.ts).
   */
  async function countLoginAttempt(email: string): Promise<{ noticeDue: boolean }> {
    const at = now();
    const { blocked, noticeDue } = await database.transaction(async (tx) => {
      const row = await repo.lockLoginThrottle(tx, throttleKey(email), at);
      const wait = secondsBlocked(row, at);
      if (wait > 0) return { blocked: wait, noticeDue: false };
      const next = afterFailure(row, at);
      await repo.saveLoginThrottle(tx, { ...row, ...next.run });
      return { blocked: 0, noticeDue: next.noticeDue };
    });
    if (blocked > 0) {
      const minutes = Math.ceil(blocked / 60);
      throw new TooManyRequests(
        `Too many failed logins to this account. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or reset your password.`,
        blocked,
      );
    }
    return { noticeDue };
  }

  async function openSession(userId: string): Promise<string> {
    const { token, hash } = newToken();
    await repo.insertSession(database.db, hash, userId);
    return token;
  }

  async function mailResetLink(email: string): Promise<void> {
    const account = await repo.accountByEmail(database.db, email);
    if (!account || account.kind !== 'member') return;
    const { token, hash } = newToken();
    await repo.insertPasswordReset(database.db, hash, account.id, new Date(now().getTime() + RESET_TOKEN_MINUTES * 60_000));
    await mailer.send(resetMail(deps.publicUrl, account.email!, token));
  }

  const service = {
    /**
     * The user a token belongs to, or null for no, unknown, revoked or idle tokens. A use keeps the
     * session alive (sliding expiry), written down at most once an hour so reads stay reads.
     */
    async authenticate(token: string | undefined | null): Promise<string | null> {
      return (await service.identify(token))?.userId ?? null;
    },

    /** The user and role a token belongs to (`authenticate`'s rules); a role change shows within the cache's 5 seconds. */
    async identify(token: string | undefined | null): Promise<Caller | null> {
      if (!looksLikeToken(token)) return null;
      const hash = hashToken(token);
      const cached = sessionCache.get(hash);
      if (cached) return cached;
      const before = forgotten;
      const session = await repo.liveSession(database.db, hash, idleSeconds);
      if (!session) return null;
      if (session.touchDue) await repo.touchSession(database.db, hash);
      const caller = { userId: session.userId, role: session.role };
      if (forgotten === before) sessionCache.set(hash, caller);
      return caller;
    },

    /** A user's sessions were revoked, or the role changed: every process forgets what it held of them. */
    forgetSessionsOf: (userId: string): Promise<void> => sessionsEnded(userId),

    /** Listens for sessions other processes ended (repo.announceSessionsEnded); resolves to the way to stop. */
    watchEndedSessions: (): Promise<() => Promise<void>> => database.listen(SESSIONS_ENDED, forgetSessions),

    /** The caller's user; one with no valid token becomes a new guest with a new token. */
    async currentUser(context: RequestContext, token: string | undefined): Promise<Session> {
      const account = context.userId ? await accountOf(context.userId) : null;
      if (account && token) return { user: await present(account), token };
      const guest = await repo.insertAccount(database.db, { id: randomUUID(), kind: 'guest' });
      return { user: await present(guest), token: await openSession(guest.id) };
    },

    /**
     * Deletes up to `limit` guests that never did anything (no list, no history, no coins, no VIP)
     * and whose sessions all lapsed over `days` ago: nobody can reach them any more. Answers how many.
     */
    async purgeIdleGuests(days: number, limit = 500): Promise<number> {
      // A guest watching now has positions held in memory: written first, they keep it from the purge.
      await positions.flush();
      const candidates = await repo.idleGuests(database.db, days, limit);
      const idle: string[] = [];
      for (const id of candidates) {
        const { coins, vip } = await standing.standingOf(id);
        if (coins === 0 && !vip) idle.push(id);
      }
      return database.transaction((tx) => repo.deleteGuests(tx, idle));
    },

    /** Deletes sessions, reset and verification links, failed-login runs and browsers that can no longer count (retention). */
    pruneSessions: () => repo.pruneSessions(database.db, deps.sessionIdleDays),

    /** Changes the caller's settings; fields left out stay as they were. */
    async updateSettings(context: RequestContext, settings: Partial<UserSettings>): Promise<User> {
      if (!context.userId) throw new Unauthorized();
      const account = await repo.updateSettings(database.db, context.userId, settings);
      if (!account) throw new Unauthorized();
      accountCache.delete(account.id);
      return present(account);
    },

    /**
     * Registers a member. A guest caller becomes that member, keeping all it had; the guest's tokens
     * are revoked (one lying in an old tab or a shared device must not open the member's account) and
     * the answer carries the member's new token. The account works at once; a link to verify the
     * email is mailed after the answer. `device`: the browser's device cookie, if it has one.
     */
    async register(context: RequestContext, email: string, password: string, device?: string): Promise<Session> {
      const passwordHash = await hashPassword(password);
      try {
        const { account, wasGuest } = await database.transaction(async (tx) => {
          const caller = context.userId ? await repo.accountById(tx, context.userId) : null;
          const promoted = caller?.kind === 'guest';
          const member = promoted
            ? await repo.promoteGuest(tx, caller.id, email, passwordHash, null)
            : await repo.insertAccount(tx, { id: randomUUID(), kind: 'member', email, passwordHash, registeredAt: new Date() });
          if (!member) throw new Conflict('This account is already registered');
          if (promoted) await repo.revokeAllSessions(tx, member.id);
          await appendEvent(tx, context, 'user.registered', { email, wasGuest: promoted }, member.id);
          return { account: member, wasGuest: promoted };
        });
        accountCache.delete(account.id);
        // A guest's tokens were revoked: every process drops them. A new account has none to drop.
        if (wasGuest) await sessionsEnded(account.id);
        bus.nudge();
        (await verificationLink(database.db, account)).mail();
        return { user: await present(account), token: await openSession(account.id), device: await rememberDevice(account.id, device) };
      } catch (error) {
        if (isUniqueViolation(error)) throw new Conflict('This email is already registered');
        throw error;
      }
    },

    /** A new session of an account that just signed in another way (social sign-in), answered as login answers it. */
    async sessionOf(account: Account): Promise<Session> {
      return { user: await present(account), token: await openSession(account.id) };
    },

    /** Forgets what the processes remember of a user whose kind or sessions changed: a guest that became a member. */
    async forgetUser(userId: string): Promise<void> {
      accountCache.delete(userId);
      await sessionsEnded(userId);
    },

    /**
     * Logs a member in with a new token. A guest caller's favorites and history move to the member.
     * A browser that never logged in to the account (`device`: its device cookie) is throttled by the
     * email's failed logins (login-throttle.ts); one that did is not, so failures elsewhere never lock
     * the owner out of their own browsers.
     */
    async login(context: RequestContext, email: string, password: string, device?: string): Promise<Session> {
      const account = await repo.accountByEmail(database.db, email);
      const known = account !== null && looksLikeToken(device) && (await repo.isKnownDevice(database.db, hashToken(device), account.id));
      const attempt = known ? null : await countLoginAttempt(email);
      const valid = await verifyPassword(account?.passwordHash ?? null, password);
      if (!account || !valid) {
        if (attempt?.noticeDue && account?.kind === 'member') mailLater('failed logins notice', () => mailer.send(throttleNoticeMail(deps.publicUrl, account.email!)));
        throw new UserFacingError(WRONG_CREDENTIALS);
      }
      // The right password from a new browser ends the run: that browser is known from now on.
      if (attempt) await repo.clearLoginThrottle(database.db, throttleKey(email));
      // A guest's positions still in memory are written first, to move with the rest of its history.
      if (context.userId) await positions.flushViewer(context.userId);
      const mergedGuestId = await database.transaction(async (tx) => {
        const caller = context.userId && context.userId !== account.id ? await repo.accountById(tx, context.userId) : null;
        const merged = caller?.kind === 'guest' ? caller.id : null;
        if (merged) await repo.mergeGuestInto(tx, merged, account.id);
        await appendEvent(tx, context, 'user.logged_in', { mergedGuestId: merged }, account.id);
        return merged;
      });
      // The guest is gone: its tokens open nothing any more, in any process.
      if (mergedGuestId) await sessionsEnded(mergedGuestId);
      bus.nudge();
      return { user: await present(account), token: await openSession(account.id), device: await rememberDevice(account.id, device) };
    },

    async logout(token: string | undefined): Promise<void> {
      if (!looksLikeToken(token)) return;
      const ended = await repo.revokeSession(database.db, hashToken(token));
      sessionCache.delete(hashToken(token));
      if (ended) await sessionsEnded(ended);
    },

    /**
     * Mails a reset link when a member has this email. Returns at once, before even looking the email
     * up: the answer is the same, and as fast, whether the account exists or not (no probing by
     * timing); the look-up and the mail follow. A failure is logged, without the link.
     */
    forgotPassword(email: string): void {
      mailLater('password reset', () => mailResetLink(email));
    },

    /** Resolves once every mail asked for so far has been sent (or failed): shutdown waits for it. */
    async mailSent(): Promise<void> {
      while (mailing.size > 0) await Promise.all([...mailing]);
    },

    /**
     * Sets a new password with a reset token, once, and ends every session of that member. The link
     * came by mail, so it verifies the email too, ends the email's run of failed logins, and makes the
     * browser that used it (`device`, answered) one that logged in: a reset always lets the owner back in.
     */
    async resetPassword(token: string, password: string, device?: string): Promise<{ device: string }> {
      const passwordHash = await hashPassword(password);
      const owner = await database.transaction(async (tx) => {
        const userId = looksLikeToken(token) ? await repo.consumePasswordReset(tx, hashToken(token)) : null;
        const account = userId ? await repo.accountById(tx, userId) : null;
        if (!account?.email) throw new UserFacingError('This reset link is invalid or has expired');
        await repo.setPassword(tx, account.id, passwordHash);
        await repo.voidPasswordResets(tx, account.id);
        await repo.revokeAllSessions(tx, account.id);
        await repo.markEmailVerified(tx, account.id, account.email);
        await repo.clearLoginThrottle(tx, throttleKey(account.email));
        return account;
      });
      accountCache.delete(owner.id);
      await sessionsEnded(owner.id);
      return { device: await rememberDevice(owner.id, device) };
    },

    /** Verifies the email a link was mailed to, once, within 24 hours, if it is still the member's email; answers that member. */
    async verifyEmail(token: string): Promise<User> {
      const at = now();
      const account = await database.transaction(async (tx) => {
        const link = looksLikeToken(token) ? await repo.consumeEmailVerification(tx, hashToken(token), at) : null;
        const verified = link ? await repo.markEmailVerified(tx, link.userId, link.email) : null;
        // A link for an address the member no longer has verifies nothing.
        if (!verified) throw new Invalid({ token: EXPIRED_VERIFICATION });
        await repo.voidEmailVerifications(tx, verified.id, at);
        return verified;
      });
      accountCache.delete(account.id);
      return present(account);
    },

    /**
     * Mails the caller a new verification link: a member whose email is not verified yet, at most once
     * a minute and VERIFICATIONS_PER_DAY times a day (429 with the seconds to wait).
     */
    async resendVerification(context: RequestContext): Promise<void> {
      const userId = requireUser(context);
      const at = now();
      const link = await database.transaction(async (tx) => {
        const member = await repo.lockAccount(tx, userId);
        if (!member || member.kind !== 'member') throw new Conflict('Only a registered member has an email to verify');
        if (emailVerified(member)) throw new Conflict('Your email is already verified');
        const recent = await repo.verificationsSince(tx, userId, new Date(at.getTime() - 86_400_000));
        const waitUntil = Math.max(
          (recent.newest?.getTime() ?? 0) + VERIFICATION_RESEND_SECONDS * 1000,
          recent.count >= VERIFICATIONS_PER_DAY ? recent.oldest!.getTime() + 86_400_000 : 0,
        );
        if (waitUntil > at.getTime()) {
          throw new TooManyRequests('A verification link was sent a moment ago. Please check your mail, or ask again later.', Math.ceil((waitUntil - at.getTime()) / 1000));
        }
        return verificationLink(tx, member);
      });
      link.mail();
    },

    async setFavorite(context: RequestContext, videoId: string, favorite: boolean): Promise<void> {
      const userId = requireUser(context);
      if (favorite && !(await catalog.cardsOf([videoId])).has(videoId)) throw new NotFound('No such video');
      await database.transaction(async (tx) => {
        const changed = favorite ? await repo.addFavorite(tx, userId, videoId) : await repo.removeFavorite(tx, userId, videoId);
        if (changed) await appendEvent(tx, context, 'favorite.changed', { videoId, favorite });
      });
      bus.nudge();
    },


    async favorites(context: RequestContext, page: number, size: number): Promise<Page<VideoCard & { favoritedAt: string }>> {
      const rows = await repo.favoritesPage(database.db, requireUser(context), (page - 1) * size, size + 1);
      const cards = await catalog.cardsOf(rows.map((row) => row.videoId));
      // A favorite whose video was taken down is left out of the page, not shown broken.
      const items = rows.slice(0, size).flatMap((row) => {
        const card = cards.get(row.videoId);
        return card ? [{ ...card, favoritedAt: row.createdAt.toISOString() }] : [];
      });
      return { items, page, size, hasMore: rows.length > size };
    },

    /**
     * A player's heartbeat: held in memory and written with the others on the next flush
     * (watch-positions.ts); `final` (the viewer left, paused or finished) is written at once.
     */
    async recordHistory(context: RequestContext, episodeId: string, positionSeconds: number, final = false): Promise<void> {
      const userId = requireUser(context);
      let episode = episodeRefs.get(episodeId);
      if (!episode) {
        const found = await catalog.episodeRef(episodeId);
        if (!found) throw new NotFound('No such episode');
        episodeRefs.set(episodeId, (episode = found));
      }
      await positions.record(context, { userId, videoId: episode.videoId, episodeId, episodeNumber: episode.number, positionSeconds }, final);
    },

    /** Writes every held position and its events (the module's interval, and at shutdown). */
    flushHistory: () => positions.flush(),
    /** Writes one viewer's held positions (a guest whose history moves to a member). */
    flushHistoryOf: (userId: string) => positions.flushViewer(userId),
    historyWaiting: () => positions.waiting(),

    async history(context: RequestContext, page: number, size: number): Promise<Page<HistoryEntry>> {
      const userId = requireUser(context);
      await positions.flushViewer(userId);
      const rows = await repo.historyPage(database.db, userId, (page - 1) * size, size + 1);
      const cards = await catalog.cardsOf(rows.map((row) => row.videoId));
      const items = rows.slice(0, size).flatMap((row) => {
        const video = cards.get(row.videoId);
        return video
          ? [{ video, episode: { id: row.episodeId, number: row.episodeNumber }, positionSeconds: row.positionSeconds, updatedAt: row.updatedAt.toISOString() }]
          : [];
      });
      return { items, page, size, hasMore: rows.length > size };
    },

    /** The viewer's own relation to one series: in their list, and where they stopped (the catalog's ViewerLists). */
    async viewerOf(userId: string, videoId: string) {
      await positions.flushViewer(userId);
      return repo.viewerOfSeries(database.db, userId, videoId);
    },
  };
  return service;
}

export type UserService = ReturnType<typeof createUserService>;
