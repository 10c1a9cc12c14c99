import { randomUUID, timingSafeEqual } from 'node:crypto';
import { appendEvent, Conflict, Invalid, NotFound, type Database, type EventBus, type Executor, type Logger, type RequestContext } from '@cliffhanger/platform';
import { SignInRefused, type IdentityProviders, type ProviderName } from './identity-providers.ts';
import { userRepository as repo, type Account } from './repository.ts';
import { emailVerified, isUniqueViolation, type Session, type UserService } from './service.ts';
import { hashToken, looksLikeToken, newToken } from './tokens.ts';

export const SIGN_IN_STATE_MINUTES = 10;
export const SIGN_IN_CODE_MINUTES = 5;
/** The cookie that binds a sign-in to the browser that started it (routes.ts sets, reads and clears it). */
export const BINDING_COOKIE = 'cliffhanger_sign_in';
/** As long as a sign-in may take: its state's minutes at the provider, then its code's. */
export const BINDING_COOKIE_SECONDS = (SIGN_IN_STATE_MINUTES + SIGN_IN_CODE_MINUTES) * 60;
export const EXPIRED_SIGN_IN = 'This sign-in has expired or was already used. Please sign in again.';
/** Where the storefront goes when no page (or no page of this site) asked for the sign-in. */
export const DEFAULT_RETURN_PATH = '/my';

/** Why a sign-in came back to /login without a code (`oauthError`); the storefront words each. */
export type SignInFailure = 'state' | 'expired' | 'denied' | 'provider' | 'email';

export interface SocialSignInDeps {
  database: Database;
  bus: EventBus;
  logger: Logger;
  providers: IdentityProviders;
  users: UserService;
  /** The site's public address: the provider sends the browser back to `<it>/api/user/oauth/<provider>/callback`. */
  publicUrl: string;
}

const SITE = 'https://site.invalid';

/**
 * A path of this site to go back to after signing in, or the default: never another origin, whatever
 * the browser would make of it (`//host`, `/\host`, `/.//host`, control characters).
 */
export function safeReturnPath(value: string | undefined): string {
  if (!value || value.length > 1000 || !value.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(value)) return DEFAULT_RETURN_PATH;
  const url = new URL(value, SITE);
  const path = url.pathname + url.search;
  return url.origin === SITE && !path.startsWith('//') ? path : DEFAULT_RETURN_PATH;
}

/** Whether the browser's binding cookie is the one the sign-in was started with (`expected`: its SHA-256). */
const sameBinding = (expected: string, binding: string | undefined) => {
  if (!looksLikeToken(binding)) return false;
  const actual = Buffer.from(hashToken(binding));
  const wanted = Buffer.from(expected);
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
};

const loginPage = (query: Record<string, string>) => `/login?${new URLSearchParams(query)}`;

/**
 * Sign-in with Google or Facebook (docs/api.md "Accounts"). `start` keeps the attempt's state, PKCE
 * verifier and nonce, keyed by the state's hash, and sends the browser to the provider; `callback`
 * takes the state out (once), has the provider's answer checked, and sends the browser back to
 * /login with a one-time code; `exchange` turns that code into a session for the caller.
 *
 * Each attempt is bound to the browser that started it: `start` answers a random binding for its
 * cookie (BINDING_COOKIE) and keeps only its hash, `callback` hands that hash on to the one-time
 * code, and `exchange` needs the same cookie, so a code (or a provider's answer) planted in someone
 * else's browser signs nobody in there (login CSRF). Whoever calls the exchange is the guest whose
 * list and history are kept.
 */
export function createSocialSignIn(deps: SocialSignInDeps) {
  const { database, bus, logger, providers, users } = deps;
  const callbackUrl = (provider: ProviderName) => `${deps.publicUrl.replace(/\/+$/, '')}/api/user/oauth/${provider}/callback`;

  function providerOf(name: string): ProviderName {
    if (!providers.isConfigured(name)) throw new NotFound('Sign-in with this provider is not available');
    return name;
  }

  /**
   * The member a provider account signs in as: the one it was linked to; else the member with its
   * verified email, linked now; else a new member, made of the caller's guest when there is one.
   *
   * A member whose email was never verified may have been registered by someone else, in advance, to
   * be handed the account of whoever later signs in with that address (pre-registration hijack). The
   * provider has now proved whose the address is, so, as OWASP's account-linking guidance prefers,
   * the address's owner takes the account: its password (unproven) is removed, its sessions, reset
   * and verification links and known browsers end, and its email becomes verified. The owner may set
   * a password of their own with a password reset.
   */
  async function memberFor(context: RequestContext, provider: string, subject: string, email: string | null): Promise<Account> {
    // A guest's positions still in memory are written first, to move with the rest of its history.
    if (context.userId) await users.flushHistoryOf(context.userId);
    return database.transaction(async (tx) => {
      const caller = context.userId ? await repo.accountById(tx, context.userId) : null;
      const guest = caller?.kind === 'guest' ? caller : null;
      let member = await repo.accountOfIdentity(tx, provider, subject);
      if (!member) {
        if (!email) throw new Invalid({ code: EXPIRED_SIGN_IN });
        member = await repo.accountByEmail(tx, email);
        if (!member) {
          const registered = guest
            ? await repo.promoteGuest(tx, guest.id, email, null, email)
            : await repo.insertAccount(tx, { id: randomUUID(), kind: 'member', email, verifiedEmail: email, registeredAt: new Date() });
          if (!registered) throw new Conflict('This account is already registered');
          await repo.linkIdentity(tx, provider, subject, registered.id);
          // As with registering: the guest's old tokens must not open the member it became.
          if (guest) await repo.revokeAllSessions(tx, registered.id);
          await appendEvent(tx, context, 'user.registered', { email, wasGuest: Boolean(guest) }, registered.id);
          return registered;
        }
        if (!emailVerified(member)) member = await takeOverUnverified(tx, member, email);
        await repo.linkIdentity(tx, provider, subject, member.id);
      }
      // As with logging in: the guest's list and history move to the member.
      const mergedGuestId = guest && guest.id !== member.id ? guest.id : null;
      if (mergedGuestId) await repo.mergeGuestInto(tx, mergedGuestId, member.id);
      await appendEvent(tx, context, 'user.logged_in', { mergedGuestId }, member.id);
      return member;
    });
  }

  /** The unverified member `member` handed to the owner of its email, whom the provider vouched for (memberFor). */
  async function takeOverUnverified(tx: Executor, member: Account, email: string): Promise<Account> {
    const now = new Date();
    await repo.setPassword(tx, member.id, null);
    await repo.revokeAllSessions(tx, member.id);
    await repo.voidPasswordResets(tx, member.id);
    await repo.voidEmailVerifications(tx, member.id, now);
    await repo.forgetDevices(tx, member.id);
    logger.info({ userId: member.id }, 'social sign-in took over a member whose email was unverified: its password was removed');
    return (await repo.markEmailVerified(tx, member.id, email))!;
  }

  return {
    /** The providers this site signs in with (their client ids are configured). */
    providers: () => providers.configured(),

    /** Whether the binding cookie may be marked Secure: the site is served over https (PUBLIC_URL). */
    onHttps: new URL(deps.publicUrl).protocol === 'https:',

    /**
     * Starts a sign-in: answers the provider's page to send the browser to, and the binding for the
     * browser's cookie; or /login with `oauthError=provider`, and no binding, when the provider cannot
     * be reached (its metadata is unknown yet). The binding is new every time, never the cookie the
     * browser sent: a value someone planted there (a sibling subdomain can set it) would let them use
     * the code of the sign-in it binds. So of two sign-ins started in one browser, the later one
     * finishes.
     */
    async start(name: string, options: { returnTo: string | undefined }): Promise<{ location: string; binding: string | null }> {
      const provider = providerOf(name);
      const returnTo = safeReturnPath(options.returnTo);
      const { token: state, hash: stateHash } = newToken();
      const { token: codeVerifier } = newToken();
      const redirectUri = callbackUrl(provider);
      let signInPage;
      try {
        signInPage = await providers.authorizationUrl(provider, { redirectUri, state, codeVerifier });
      } catch {
        return { location: loginPage({ oauthError: 'provider', redirect: returnTo }), binding: null };
      }
      const { url, nonce } = signInPage;
      const binding = newToken().token;
      await repo.insertOAuthFlow(database.db, {
        stateHash,
        provider,
        codeVerifier,
        nonce,
        redirectUri,
        returnTo,
        browserBinding: hashToken(binding),
        expiresAt: new Date(Date.now() + SIGN_IN_STATE_MINUTES * 60_000),
      });
      return { location: url.href, binding };
    },

    /**
     * The provider's answer: answers where the browser goes, /login with a one-time code or with the
     * reason it failed (and, either way, the page that asked for the sign-in).
     */
    async callback(name: string, query: URLSearchParams): Promise<string> {
      const provider = providerOf(name);
      const state = query.get('state');
      const flow = looksLikeToken(state) ? await repo.takeOAuthFlow(database.db, hashToken(state), provider) : null;
      if (!flow) return loginPage({ oauthError: 'state' });
      const failed = (reason: SignInFailure) => loginPage({ oauthError: reason, redirect: flow.returnTo });
      if (flow.expiresAt <= new Date()) return failed('expired');

      let profile;
      try {
        profile = await providers.profileFrom(provider, new URL(`${flow.redirectUri}?${query}`), { state: state!, codeVerifier: flow.codeVerifier, nonce: flow.nonce });
      } catch (error) {
        if (!(error instanceof SignInRefused)) throw error;
        if (error.reason === 'provider') logger.warn({ provider, reason: error.message }, 'social sign-in refused');
        return failed(error.reason);
      }
      // Only an email the provider confirmed may open (or become) a member; a linked account needs none.
      if (!profile.verifiedEmail && !(await repo.accountOfIdentity(database.db, provider, profile.subject))) return failed('email');

      const { token: code, hash: codeHash } = newToken();
      await repo.insertOAuthCode(database.db, {
        codeHash,
        provider,
        subject: profile.subject,
        email: profile.verifiedEmail,
        browserBinding: flow.browserBinding,
        expiresAt: new Date(Date.now() + SIGN_IN_CODE_MINUTES * 60_000),
      });
      return loginPage({ oauth: code, redirect: flow.returnTo });
    },

    /**
     * Turns a one-time code into a session, once, for the browser that started the sign-in (`binding`:
     * its cookie). A code tried without that cookie is spent all the same.
     */
    async exchange(context: RequestContext, code: string, binding: string | undefined): Promise<Session> {
      const signIn = looksLikeToken(code) ? await repo.takeOAuthCode(database.db, hashToken(code)) : null;
      if (!signIn || signIn.expiresAt <= new Date() || !sameBinding(signIn.browserBinding, binding)) throw new Invalid({ code: EXPIRED_SIGN_IN });
      let member: Account;
      try {
        member = await memberFor(context, signIn.provider, signIn.subject, signIn.email);
      } catch (error) {
        // Another sign-in or registration of the same person got there first, a moment ago.
        if (isUniqueViolation(error)) throw new Conflict('This account was just signed in elsewhere. Please sign in again.');
        throw error;
      }
      await users.forgetUser(member.id);
      // A guest merged into the member is gone: its tokens open nothing any more, in any process.
      if (context.userId && context.userId !== member.id) await users.forgetUser(context.userId);
      bus.nudge();
      return users.sessionOf(member);
    },
  };
}

export type SocialSignIn = ReturnType<typeof createSocialSignIn>;
