import { randomUUID } from 'node:crypto';
import {
  appendEvent,
  Conflict,
  NotFound,
  Unauthorized,
  UserFacingError,
  type Database,
  type EventBus,
  type Mailer,
  type Page,
  type RequestContext,
  TtlCache,
} from '@cliffhanger/platform';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { AccountStanding, CatalogDirectory, VideoCard } from './ports.ts';
import { userRepository as repo, type Account } from './repository.ts';
import { hashToken, looksLikeToken, newToken } from './tokens.ts';

export const RESET_TOKEN_MINUTES = 30;
/** How long another process may still accept a token revoked elsewhere, or show an account's old kind. */
export const SESSION_CACHE_MS = 5_000;
export const WRONG_CREDENTIALS = 'Incorrect email or password';

export interface User {
  id: string;
  kind: 'guest' | 'member';
  email: string | null;
  coins: number;
  vip: { planId: string; renewsAt: string; cancelAtPeriodEnd: boolean } | null;
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
  catalog: CatalogDirectory;
  standing: AccountStanding;
  /** Where links in mail point, e.g. https://cliffhanger.example. */
  publicUrl: string;
}

/** A signed-in user and the token that proves it, as the gateway hands them to the client. */
export interface Session {
  user: User;
  token: string;
}

const isUniqueViolation = (error: unknown): boolean => {
  const cause = (error as { cause?: { code?: string } })?.cause ?? error;
  return (cause as { code?: string })?.code === '23505';
};

export function createUserService(deps: UserServiceDeps) {
  const { database, bus, mailer, catalog, standing } = deps;
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
    const { coins, vip } = await standing.standingOf(account.id);
    return { id: account.id, kind: account.kind, email: account.email, coins, vip };
  }

  async function openSession(userId: string): Promise<string> {
    const { token, hash } = newToken();
    await repo.insertSession(database.db, hash, userId);
    return token;
  }

  const service = {
    /** The user a token belongs to, or null for no, unknown or revoked tokens. */
    async authenticate(token: string | undefined | null): Promise<string | null> {
      if (!looksLikeToken(token)) return null;
      const hash = hashToken(token);
      const cached = sessionCache.get(hash);
      if (cached) return cached;
      const userId = await repo.sessionUser(database.db, hash);
      if (userId) sessionCache.set(hash, userId);
      return userId;
    },

    /** The caller's user; one with no valid token becomes a new guest with a new token. */
    async currentUser(context: RequestContext, token: string | undefined): Promise<Session> {
      const account = context.userId ? await accountOf(context.userId) : null;
      if (account && token) return { user: await present(account), token };
      const guest = await repo.insertAccount(database.db, { id: randomUUID(), kind: 'guest' });
      return { user: await present(guest), token: await openSession(guest.id) };
    },

    /** Registers a member. A guest caller becomes that member, keeping all it had. */
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
          await appendEvent(tx, context, 'user.registered', { email, wasGuest: caller?.kind === 'guest' }, member.id);
          return member;
        });
        accountCache.delete(account.id);
        bus.nudge();
        return { user: await present(account), token: await openSession(account.id) };
      } catch (error) {
        if (isUniqueViolation(error)) throw new Conflict('This email is already registered');
        throw error;
      }
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

    /** Mails a reset link when a member has this email; answers the same either way. */
    async forgotPassword(email: string): Promise<void> {
      const account = await repo.accountByEmail(database.db, email);
      if (!account || account.kind !== 'member') return;
      const { token, hash } = newToken();
      await repo.insertPasswordReset(database.db, hash, account.id, new Date(Date.now() + RESET_TOKEN_MINUTES * 60_000));
      const link = `${deps.publicUrl}/retrievePassword?reset=${token}`;
      await mailer.send({
        to: account.email!,
        subject: 'Reset your Cliffhanger password',
        text: `Someone asked to reset the password of your Cliffhanger account.\n\nChoose a new password here (the link works once, for ${RESET_TOKEN_MINUTES} minutes):\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is.`,
      });
    },

    /** Sets a new password with a reset token, once, and ends every session of that member. */
    async resetPassword(token: string, password: string): Promise<void> {
      const passwordHash = await hashPassword(password);
      const userId = await database.transaction(async (tx) => {
        const owner = looksLikeToken(token) ? await repo.consumePasswordReset(tx, hashToken(token)) : null;
        if (!owner) throw new UserFacingError('This reset link is invalid or has expired');
        await repo.setPassword(tx, owner, passwordHash);
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

function requireUser(context: RequestContext): string {
  if (!context.userId) throw new Unauthorized();
  return context.userId;
}

export type UserService = ReturnType<typeof createUserService>;
