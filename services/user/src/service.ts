import { randomUUID } from 'node:crypto';
import {
  appendEvent,
  Conflict,
  NotFound,
  requireUser,
  Unauthorized,
  UserFacingError,
  type Database,
  type EventBus,
  type Logger,
  type Mailer,
  type Page,
  type RequestContext,
  TtlCache,
} from '@cliffhanger/platform';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { AccountStanding, CatalogClient, VideoCard } from './ports.ts';
import { userRepository as repo, type Account } from './repository.ts';
import { hashToken, looksLikeToken, newToken } from './tokens.ts';

export const RESET_TOKEN_MINUTES = 30;
/** How long another process may still accept a token revoked elsewhere, or show an account's old kind. */
export const SESSION_CACHE_MS = 5_000;
export const WRONG_CREDENTIALS = 'Incorrect email or password';
const RESET_SUBJECT = 'Reset your Cliffhanger password';

export interface User {
  id: string;
  kind: 'guest' | 'member';
  email: string | null;
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
}

/** A signed-in user and the token that proves it, as the gateway hands them to the client. */
export interface Session {
  user: User;
  token: string;
}

export const isUniqueViolation = (error: unknown): boolean => {
  const cause = (error as { cause?: { code?: string } })?.cause ?? error;
  return (cause as { code?: string })?.code === '23505';
};

export function createUserService(deps: UserServiceDeps) {
  const { database, bus, mailer, catalog, standing, logger } = deps;
  const idleSeconds = deps.sessionIdleDays * 86_400;
  /** Password mails still being sent: they go out after the answer, and shutdown waits for them. */
  const mailing = new Set<Promise<void>>();
  const sessionCache = new TtlCache<string, string>(SESSION_CACHE_MS, 50_000);
  const accountCache = new TtlCache<string, Account>(SESSION_CACHE_MS, 50_000);

  async function accountOf(userId: string): Promise<Account | null> {
    const cached = accountCache.get(userId);
    if (cached) return cached;
    const account = await repo.accountById(database.db, userId);
    if (account) accountCache.set(userId, account);
    return account;
  }

  async function present(account: Account): Promise<User> {
    const { coins, bonusCoins, vip } = await standing.standingOf(account.id);
    return { id: account.id, kind: account.kind, email: account.email, coins, bonusCoins, vip, settings: { autoUnlock: account.autoUnlock } };
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
    await repo.insertPasswordReset(database.db, hash, account.id, new Date(Date.now() + RESET_TOKEN_MINUTES * 60_000));
    const link = `${deps.publicUrl.replace(/\/+$/, '')}/retrievePassword?reset=${token}`;
    await mailer.send({
      to: account.email!,
      subject: RESET_SUBJECT,
      text: `Someone asked to reset the password of your Cliffhanger account.\n\nChoose a new password here (the link works once, for ${RESET_TOKEN_MINUTES} minutes):\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is.`,
    });
  }

  const service = {
    /**
     * The user a token belongs to, or null for no, unknown, revoked or idle tokens. A use keeps the
     * session alive (sliding expiry), written down at most once an hour so reads stay reads.
     */
    async authenticate(token: string | undefined | null): Promise<string | null> {
      if (!looksLikeToken(token)) return null;
      const hash = hashToken(token);
      const cached = sessionCache.get(hash);
      if (cached) return cached;
      const session = await repo.liveSession(database.db, hash, idleSeconds);
      if (!session) return null;
      if (session.touchDue) await repo.touchSession(database.db, hash);
      sessionCache.set(hash, session.userId);
      return session.userId;
    },

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
      const candidates = await repo.idleGuests(database.db, days, limit);
      const idle: string[] = [];
      for (const id of candidates) {
        const { coins, vip } = await standing.standingOf(id);
        if (coins === 0 && !vip) idle.push(id);
      }
      return database.transaction((tx) => repo.deleteGuests(tx, idle));
    },

    /** Deletes sessions and reset links that can no longer be used (retention). */
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
     * the answer carries the member's new token.
     */
    async register(context: RequestContext, email: string, password: string): Promise<Session> {
      const passwordHash = await hashPassword(password);
      try {
        const account = await database.transaction(async (tx) => {
          const caller = context.userId ? await repo.accountById(tx, context.userId) : null;
          const member =
            caller?.kind === 'guest'
              ? await repo.promoteGuest(tx, caller.id, email, passwordHash)
              : await repo.insertAccount(tx, { id: randomUUID(), kind: 'member', email, passwordHash, registeredAt: new Date() });
          if (!member) throw new Conflict('This account is already registered');
          if (caller?.kind === 'guest') await repo.revokeAllSessions(tx, member.id);
          await appendEvent(tx, context, 'user.registered', { email, wasGuest: caller?.kind === 'guest' }, member.id);
          return member;
        });
        accountCache.delete(account.id);
        sessionCache.deleteWhere((sessionUserId) => sessionUserId === account.id);
        bus.nudge();
        return { user: await present(account), token: await openSession(account.id) };
      } catch (error) {
        if (isUniqueViolation(error)) throw new Conflict('This email is already registered');
        throw error;
      }
    },

    /** A new session of an account that just signed in another way (social sign-in), answered as login answers it. */
    async sessionOf(account: Account): Promise<Session> {
      return { user: await present(account), token: await openSession(account.id) };
    },

    /** Forgets what this process remembers of a user whose kind or sessions changed: a guest that became a member. */
    forgetUser(userId: string): void {
      accountCache.delete(userId);
      sessionCache.deleteWhere((sessionUserId) => sessionUserId === userId);
    },

    /** Logs a member in with a new token. A guest caller's favorites and history move to the member. */
    async login(context: RequestContext, email: string, password: string): Promise<Session> {
      const account = await repo.accountByEmail(database.db, email);
      const valid = await verifyPassword(account?.passwordHash ?? null, password);
      if (!account || !valid) throw new UserFacingError(WRONG_CREDENTIALS);
      await database.transaction(async (tx) => {
        const caller = context.userId && context.userId !== account.id ? await repo.accountById(tx, context.userId) : null;
        const mergedGuestId = caller?.kind === 'guest' ? caller.id : null;
        if (mergedGuestId) await repo.mergeGuestInto(tx, mergedGuestId, account.id);
        await appendEvent(tx, context, 'user.logged_in', { mergedGuestId }, account.id);
      });
      bus.nudge();
      return { user: await present(account), token: await openSession(account.id) };
    },

    async logout(token: string | undefined): Promise<void> {
      if (!looksLikeToken(token)) return;
      await repo.revokeSession(database.db, hashToken(token));
      sessionCache.delete(hashToken(token));
    },

    /**
     * Mails a reset link when a member has this email. Returns at once, before even looking the email
     * up: the answer is the same, and as fast, whether the account exists or not (no probing by
     * timing); the look-up and the mail follow. A failure is logged, without the link.
     */
    forgotPassword(email: string): void {
      const sending = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => mailResetLink(email))
        .catch((error: unknown) => logger.error({ err: error }, 'password reset mail failed'))
        .finally(() => mailing.delete(sending));
      mailing.add(sending);
    },

    /** Resolves once every password mail asked for so far has been sent (or failed): shutdown waits for it. */
    async mailSent(): Promise<void> {
      while (mailing.size > 0) await Promise.all([...mailing]);
    },

    /** Sets a new password with a reset token, once, and ends every session of that member. */
    async resetPassword(token: string, password: string): Promise<void> {
      const passwordHash = await hashPassword(password);
      const userId = await database.transaction(async (tx) => {
        const owner = looksLikeToken(token) ? await repo.consumePasswordReset(tx, hashToken(token)) : null;
        if (!owner) throw new UserFacingError('This reset link is invalid or has expired');
        await repo.setPassword(tx, owner, passwordHash);
        await repo.voidPasswordResets(tx, owner);
        await repo.revokeAllSessions(tx, owner);
        return owner;
      });
      sessionCache.deleteWhere((sessionUserId) => sessionUserId === userId);
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

    async recordHistory(context: RequestContext, episodeId: string, positionSeconds: number): Promise<void> {
      const userId = requireUser(context);
      const episode = await catalog.episodeRef(episodeId);
      if (!episode) throw new NotFound('No such episode');
      await database.transaction(async (tx) => {
        await repo.upsertHistory(tx, { userId, videoId: episode.videoId, episodeId, episodeNumber: episode.number, positionSeconds });
        await appendEvent(tx, context, 'history.recorded', { videoId: episode.videoId, episodeId, episodeNumber: episode.number, positionSeconds });
      });
      bus.nudge();
    },

    async history(context: RequestContext, page: number, size: number): Promise<Page<HistoryEntry>> {
      const rows = await repo.historyPage(database.db, requireUser(context), (page - 1) * size, size + 1);
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
      const [favorited, row] = await Promise.all([repo.isFavorite(database.db, userId, videoId), repo.historyOf(database.db, userId, videoId)]);
      return { favorited, resume: row ? { episodeId: row.episodeId, positionSeconds: row.positionSeconds } : null };
    },
  };
  return service;
}

export type UserService = ReturnType<typeof createUserService>;
