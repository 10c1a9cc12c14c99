import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@cliffhanger/platform';
import { silentLogger, startSite, testConfig, type Site } from '@cliffhanger/platform/testing';
import { catalogModule, type LocalCatalogClient } from '@cliffhanger/catalog';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '../src/index.ts';
import { createIdentityProviders } from '../src/identity-providers.ts';
import { safeReturnPath } from '../src/social-sign-in.ts';
import { startOpenIdProvider, throughProvider, type OpenIdProvider } from './openid-provider.ts';

// Social sign-in through the whole site against a real OpenID provider (oidc-provider on loopback),
// which stands in for Google by discovery and for Facebook's login dialog, its Graph API's /me too.
// The provider sends the browser back to PUBLIC_URL; the suite carries that answer to the site.
const PUBLIC_URL = 'https://cliffhanger.test';
const callbackOf = (provider: string) => `${PUBLIC_URL}/api/user/oauth/${provider}/callback`;
const modules = [userModule, catalogModule, unlockModule, transcoderModule];

let op: OpenIdProvider;
let site: Site;
beforeAll(async () => {
  op = await startOpenIdProvider([
    { clientId: 'cliffhanger-google', clientSecret: 'google-secret-0123456789', redirectUris: [callbackOf('google')] },
    { clientId: 'cliffhanger-facebook', clientSecret: 'facebook-secret-0123456789', redirectUris: [callbackOf('facebook')] },
  ]);
  site = await startSite({
    modules,
    env: {
      PUBLIC_URL,
      GOOGLE_CLIENT_ID: 'cliffhanger-google',
      GOOGLE_CLIENT_SECRET: 'google-secret-0123456789',
      GOOGLE_ISSUER: op.issuer,
      FACEBOOK_CLIENT_ID: 'cliffhanger-facebook',
      FACEBOOK_CLIENT_SECRET: 'facebook-secret-0123456789',
      FACEBOOK_ISSUER: op.issuer,
      FACEBOOK_GRAPH_URL: op.issuer,
    },
  });
  const { admin } = site.instances.get('catalog')!.client as LocalCatalogClient;
  for (let i = 1; i <= 3; i++) {
    await admin.createSeries({ id: `video-${i}`, title: `Series ${i}`, tags: ['Romance'] });
    await admin.planEpisodes(`video-${i}`, 3);
  }
});
afterAll(async () => {
  await site?.close();
  await op?.close();
});

const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(site.platform.database.db, query);
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
/** The hash a started sign-in's state is kept under, from the provider address the site sent the browser to. */
const stateHashOf = (location: string) => sha256(new URL(location).searchParams.get('state')!);
const execute = (query: ReturnType<typeof sql>) => site.platform.database.db.execute(query);

let people = 0;
/** A new person with an account at the provider. */
function person(account: { email?: string; emailVerified?: boolean } = {}) {
  const id = `person-${Date.now()}-${++people}`;
  op.accounts.set(id, { email: `${id}@example.com`, ...account });
  return id;
}

const BINDING_COOKIE = 'cliffhanger_sign_in';
/** The browser's cookie that binds a sign-in to it, as `Cookie` carries it (null: it has none). */
type Browser = { cookie: string | null };
const newBrowser = (): Browser => ({ cookie: null });
/** The binding cookie an answer sets, attributes and all. */
const bindingCookieOf = (headers: Headers) => headers.getSetCookie().find((line) => line.startsWith(`${BINDING_COOKIE}=`)) ?? null;

/** The browser goes to the start: the site's answer, and the browser keeps the binding cookie it sets. */
async function start(provider: string, query: Record<string, string>, browser: Browser = newBrowser()) {
  const response = await fetch(`${site.url}/api/user/oauth/${provider}/start?${new URLSearchParams(query)}`, {
    redirect: 'manual',
    headers: browser.cookie ? { cookie: browser.cookie } : {},
  });
  const setCookie = bindingCookieOf(response.headers);
  if (setCookie) browser.cookie = setCookie.split(';')[0]!;
  return { status: response.status, location: response.headers.get('location'), setCookie, body: await response.text() };
}

/** The browser comes back to the site's callback with the provider's answer: answers where the site sends it. */
async function callback(answer: URL) {
  const response = await fetch(`${site.url}${answer.pathname}${answer.search}`, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!, PUBLIC_URL);
}

/** Signs in at the provider as `accountId` (null: says no): the provider's answer, and where the site sends the browser. */
async function signIn(provider: 'google' | 'facebook', accountId: string | null, options: { redirect?: string; browser?: Browser } = {}) {
  const browser = options.browser ?? newBrowser();
  const started = await start(provider, { redirect: options.redirect ?? '/videos/video-1' }, browser);
  expect(started.status).toBe(302);
  op.signInAs(accountId);
  const answer = await throughProvider(started.location!, callbackOf(provider));
  return { browser, answer, landing: await callback(answer), authorization: op.authorizationRequests.at(-1)! };
}

/** The storefront's exchange call, from `browser` (with its cookie) as the caller `token`. */
const exchange = (code: string | null, browser: Browser, token?: string) =>
  site.call('POST', '/api/user/oauth/exchange', { token: token ?? null, body: { code }, headers: browser.cookie ? { cookie: browser.cookie } : {} });

async function guestWithFavorite(videoId: string) {
  const token = await site.guest();
  await site.call('POST', '/api/user/favorite', { token, body: { videoId } });
  return { token, id: (await site.call('GET', '/api/user', { token })).data.id as string };
}

const favoritesOf = async (token: string) => (await site.call('GET', '/api/user/favorite', { token })).data.items.map((card: { id: string }) => card.id).sort();

describe('which providers the site offers', () => {
  it('lists the configured providers, and answers 404 for any other', async () => {
    expect((await site.call('GET', '/api/user/oauth/providers')).data).toEqual({ providers: ['google', 'facebook'] });
    // A handled outcome: HTTP 200 with the envelope's code, as every call answers one.
    const unknown = await start('twitter', {});
    expect(unknown.status).toBe(200);
    expect(JSON.parse(unknown.body)).toMatchObject({ code: 404, message: 'Sign-in with this provider is not available' });
  });

  it('offers only what is configured, and sends the viewer back when the provider cannot be reached', async () => {
    // Google configured at an address where nothing answers; Facebook not at all.
    const other = await startSite({
      modules,
      env: { PUBLIC_URL, GOOGLE_CLIENT_ID: 'cliffhanger-google', GOOGLE_CLIENT_SECRET: 'google-secret-0123456789', GOOGLE_ISSUER: 'http://127.0.0.1:1' },
      background: false,
    });
    try {
      expect((await other.call('GET', '/api/user/oauth/providers')).data).toEqual({ providers: ['google'] });
      const facebook = await fetch(`${other.url}/api/user/oauth/facebook/start`, { redirect: 'manual' });
      expect(facebook.status).toBe(200);
      expect(await facebook.json()).toMatchObject({ code: 404, message: 'Sign-in with this provider is not available' });
      const google = await fetch(`${other.url}/api/user/oauth/google/start?redirect=%2Ffavorites`, { redirect: 'manual' });
      expect(google.status).toBe(302);
      expect(google.headers.get('location')).toBe('/login?oauthError=provider&redirect=%2Ffavorites');
      // No sign-in was kept, so there is nothing to bind.
      expect(bindingCookieOf(google.headers)).toBeNull();
    } finally {
      await other.close();
    }
    expect(createIdentityProviders({ facebookGraphUrl: 'https://graph.facebook.com' }, silentLogger).configured()).toEqual([]);
  });

  it('refuses half a client, and a provider address that is not https', () => {
    expect(() => testConfig({ GOOGLE_CLIENT_ID: 'id-only' })).toThrow('config: GOOGLE_CLIENT_SECRET: set together with GOOGLE_CLIENT_ID');
    expect(() => testConfig({ FACEBOOK_CLIENT_SECRET: 'secret-only' })).toThrow('config: FACEBOOK_CLIENT_SECRET: set together with FACEBOOK_CLIENT_ID');
    expect(() => testConfig({ GOOGLE_ISSUER: 'http://accounts.example' })).toThrow('an https URL (http only on 127.0.0.1 or localhost)');
    expect(testConfig({ GOOGLE_ISSUER: 'http://127.0.0.1:4000' }).GOOGLE_ISSUER).toBe('http://127.0.0.1:4000');
  });

  it('binds a start to its browser with a cookie only the sign-in calls see, and keeps only its hash', async () => {
    const browser = newBrowser();
    const started = await start('google', { redirect: '/my' }, browser);
    expect(started.status).toBe(302);
    const [pair, ...attributes] = started.setCookie!.split('; ');
    const binding = pair!.slice(`${BINDING_COOKIE}=`.length);
    expect(binding).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Secure: PUBLIC_URL is https. As long as a sign-in may take: 10 minutes at the provider, 5 for the code.
    expect(attributes.filter((attribute) => !attribute.startsWith('Expires=')).sort()).toEqual(['HttpOnly', 'Max-Age=900', 'Path=/api/user/oauth', 'SameSite=Lax', 'Secure']);
    expect(await rows(sql`select browser_binding from users.oauth_flows where state_hash = ${stateHashOf(started.location!)}`)).toEqual([{ browser_binding: sha256(binding) }]);

    // A second start in the same browser (another tab) gets a binding of its own, never the one the browser sent.
    const again = await start('facebook', {}, browser);
    expect(again.setCookie!.split(';')[0]).toMatch(new RegExp(`^${BINDING_COOKIE}=[A-Za-z0-9_-]{43}$`));
    expect(again.setCookie!.split(';')[0]).not.toBe(`${BINDING_COOKIE}=${binding}`);
    const other = await start('google', {}, { cookie: `${BINDING_COOKIE}=not-a-binding` });
    expect(other.setCookie!.split(';')[0]).not.toBe(`${BINDING_COOKIE}=not-a-binding`);
  });
});

describe('signing in with Google (OpenID Connect)', () => {
  it('a guest signs up with Google and keeps its favorites, history and coins', async () => {
    const guest = await guestWithFavorite('video-2');
    await site.call('POST', '/api/user/history', { token: guest.token, body: { episodeId: 'video-2-ep1', positionSeconds: 30 } });
    expect((await site.call('POST', '/api/user/checkin', { token: guest.token, body: {} })).code).toBe(200);
    const email = `Guest-${Date.now()}@Example.com`;
    const accountId = person({ email });

    const { browser, landing, authorization } = await signIn('google', accountId, { redirect: '/videos/video-2?ep=1' });
    expect(Object.fromEntries(authorization)).toMatchObject({
      client_id: 'cliffhanger-google',
      response_type: 'code',
      redirect_uri: callbackOf('google'),
      scope: 'openid email',
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
    });
    expect(landing.pathname).toBe('/login');
    expect(landing.searchParams.get('redirect')).toBe('/videos/video-2?ep=1');
    const code = landing.searchParams.get('oauth')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Kept only as hashes: the state and the one-time code.
    expect(await rows(sql`select 1 from users.oauth_codes where code_hash = ${sha256(code)}`)).toHaveLength(1);
    expect(await rows(sql`select 1 from users.oauth_flows where state_hash = ${sha256(authorization.get('state')!)}`)).toHaveLength(0);

    const member = await exchange(code, browser, guest.token);
    expect(member.code).toBe(200);
    // Spent: the binding cookie is cleared.
    expect(bindingCookieOf(member.headers)).toMatch(new RegExp(`^${BINDING_COOKIE}=; Path=/api/user/oauth; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax$`));
    expect(member.data).toMatchObject({ id: guest.id, kind: 'member', email, coins: 5, bonusCoins: 5 });
    const token = member.headers.get('x-user-token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await favoritesOf(token)).toEqual(['video-2']);
    expect((await site.call('GET', '/api/user/history', { token })).data.items[0]).toMatchObject({ video: { id: 'video-2' }, positionSeconds: 30 });
    // As with registering, the guest's own token no longer opens the member it became.
    expect((await site.call('GET', '/api/user/favorite', { token: guest.token })).code).toBe(401);
    expect(await rows(sql`select user_id from users.identities where provider = 'google' and subject = ${accountId}`)).toEqual([{ user_id: guest.id }]);
  });

  it('the same Google account signs in to the same member again, bringing the new guest’s list', async () => {
    const accountId = person();
    const first = await signIn('google', accountId);
    const member = await exchange(first.landing.searchParams.get('oauth'), first.browser);
    expect(member.data.kind).toBe('member');

    const guest = await guestWithFavorite('video-3');
    const again = await signIn('google', accountId);
    const signedIn = await exchange(again.landing.searchParams.get('oauth'), again.browser, guest.token);
    expect(signedIn.data).toMatchObject({ id: member.data.id, kind: 'member' });
    expect(await favoritesOf(signedIn.headers.get('x-user-token')!)).toEqual(['video-3']);
    expect(await rows(sql`select 1 from users.users where lower(email) = lower(${member.data.email})`)).toHaveLength(1);
  });

  it('links a member who registered and verified the same email instead of making another; the password still works', async () => {
    const email = `member-${Date.now()}@example.com`;
    const registered = await site.call('POST', '/api/user/register', { body: { email, password: 'correct horse 1', confirmPassword: 'correct horse 1' } });
    await execute(sql`update users.users set verified_email = email where id = ${registered.data.id}`);
    const guest = await guestWithFavorite('video-1');

    const { browser, landing } = await signIn('google', person({ email: email.toUpperCase() }));
    const signedIn = await exchange(landing.searchParams.get('oauth'), browser, guest.token);
    expect(signedIn.data).toMatchObject({ id: registered.data.id, kind: 'member', email, emailVerified: true });
    expect(await favoritesOf(signedIn.headers.get('x-user-token')!)).toEqual(['video-1']);
    expect(await rows(sql`select id from users.users where lower(email) = lower(${email})`)).toHaveLength(1);
    expect((await site.call('POST', '/api/user/login', { body: { email, password: 'correct horse 1' } })).data.id).toBe(registered.data.id);
  });

  it('pre-registration hijack: an account registered with someone else’s email is theirs once they sign in with Google, not the registrant’s', async () => {
    const email = `victim-${Date.now()}@gmail.example`;
    const attackerPassword = 'attacker chose this 1';
    const attacker = await site.call('POST', '/api/user/register', { body: { email, password: attackerPassword, confirmPassword: attackerPassword } });
    const attackerToken = attacker.headers.get('x-user-token')!;
    expect(attacker.data).toMatchObject({ kind: 'member', emailVerified: false });

    // The victim, who owns the address, signs in with Google and buys there.
    const { browser, landing } = await signIn('google', person({ email }));
    const victim = await exchange(landing.searchParams.get('oauth'), browser);
    expect(victim.data).toMatchObject({ kind: 'member', email, emailVerified: true });
    const victimToken = victim.headers.get('x-user-token')!;
    await site.call('POST', '/api/user/favorite', { token: victimToken, body: { videoId: 'video-2' } });

    // The attacker's password no longer logs in, and the session they kept is over.
    expect(await site.call('POST', '/api/user/login', { body: { email, password: attackerPassword } })).toMatchObject({ code: 500, message: 'Incorrect email or password' });
    const kept = await site.call('GET', '/api/user', { token: attackerToken });
    expect(kept.data).toMatchObject({ kind: 'guest' });
    expect(kept.data.id).not.toBe(victim.data.id);
    expect((await site.call('GET', '/api/user/favorite', { token: attackerToken })).code).toBe(401);
    // The victim's account is theirs alone: no password on it but one they set through their own mail.
    expect(await rows(sql`select password_hash from users.users where lower(email) = lower(${email})`)).toEqual([{ password_hash: null }]);
    expect(await favoritesOf(victimToken)).toEqual(['video-2']);
  });

  it('never links, nor makes a member of, an email the provider has not verified', async () => {
    const email = `unverified-${Date.now()}@example.com`;
    const registered = await site.call('POST', '/api/user/register', { body: { email, password: 'correct horse 1', confirmPassword: 'correct horse 1' } });
    const accountId = person({ email, emailVerified: false });

    const { landing } = await signIn('google', accountId, { redirect: '/favorites' });
    expect(Object.fromEntries(landing.searchParams)).toEqual({ oauthError: 'email', redirect: '/favorites' });
    expect(await rows(sql`select 1 from users.identities where subject = ${accountId}`)).toHaveLength(0);
    expect(await rows(sql`select id from users.users where lower(email) = lower(${email})`)).toEqual([{ id: registered.data.id }]);
  });

  it('comes back with oauthError=denied when the viewer says no at the provider', async () => {
    const { landing } = await signIn('google', null);
    expect(Object.fromEntries(landing.searchParams)).toEqual({ oauthError: 'denied', redirect: '/videos/video-1' });
  });

  it('goes back only to a path of this site', async () => {
    const { landing } = await signIn('google', person(), { redirect: 'https://evil.example/steal' });
    expect(landing.searchParams.get('redirect')).toBe('/my');
    for (const [asked, back] of [
      ['/videos/v1?ep=2', '/videos/v1?ep=2'],
      ['//evil.example/', '/my'],
      ['/\\evil.example/', '/my'],
      ['/.//evil.example/', '/my'],
      ['https://evil.example/', '/my'],
      ['javascript:alert(1)', '/my'],
      ['/ok\r\nLocation: https://evil.example/', '/my'],
      [undefined, '/my'],
    ] as const) {
      expect(safeReturnPath(asked), String(asked)).toBe(back);
    }
  });
});

describe('the checks of every sign-in', () => {
  it('refuses an unknown state, a state used twice and an expired one', async () => {
    const unknown = await callback(new URL(`${callbackOf('google')}?code=anything&state=${randomBytes(32).toString('base64url')}`));
    expect(Object.fromEntries(unknown.searchParams)).toEqual({ oauthError: 'state' });

    const { answer, landing } = await signIn('google', person());
    expect(landing.searchParams.get('oauth')).toBeTruthy();
    const replayed = await callback(answer);
    expect(Object.fromEntries(replayed.searchParams)).toEqual({ oauthError: 'state' });

    const started = await start('google', { redirect: '/my' });
    await execute(sql`update users.oauth_flows set expires_at = now() - interval '1 second' where state_hash = ${stateHashOf(started.location!)}`);
    op.signInAs(person());
    const late = await callback(await throughProvider(started.location!, callbackOf('google')));
    expect(Object.fromEntries(late.searchParams)).toEqual({ oauthError: 'expired', redirect: '/my' });
  });

  it('sends the PKCE verifier: a different one is refused by the provider', async () => {
    const started = await start('google', {});
    await execute(sql`update users.oauth_flows set code_verifier = ${randomBytes(32).toString('base64url')} where state_hash = ${stateHashOf(started.location!)}`);
    op.signInAs(person());
    const landing = await callback(await throughProvider(started.location!, callbackOf('google')));
    expect(landing.searchParams.get('oauthError')).toBe('provider');
    expect(landing.searchParams.has('oauth')).toBe(false);
  });

  it('checks the ID token’s nonce', async () => {
    const started = await start('google', {});
    await execute(sql`update users.oauth_flows set nonce = ${randomBytes(16).toString('base64url')} where state_hash = ${stateHashOf(started.location!)}`);
    op.signInAs(person());
    const landing = await callback(await throughProvider(started.location!, callbackOf('google')));
    expect(landing.searchParams.get('oauthError')).toBe('provider');
  });

  it('binds each start with a binding of its own making, never one the browser sent: a planted binding opens none of its sign-ins', async () => {
    // Whoever can plant a cookie in the viewer's browser (a page on a sibling subdomain) knows its value...
    const planted = `${BINDING_COOKIE}=${randomBytes(32).toString('base64url')}`;
    const viewer: Browser = { cookie: planted };
    const { landing } = await signIn('google', person(), { browser: viewer });
    expect(viewer.cookie).toMatch(new RegExp(`^${BINDING_COOKIE}=[A-Za-z0-9_-]{43}$`));
    expect(viewer.cookie).not.toBe(planted);
    // ...but not the binding the site made: the viewer's code, should it leak, signs nobody in with it.
    expect(await exchange(landing.searchParams.get('oauth'), { cookie: planted })).toMatchObject({ status: 200, code: 422 });
  });

  it('a one-time code works once, in the browser that started the sign-in, before it expires; never a 5xx', async () => {
    const expired = 'This sign-in has expired or was already used. Please sign in again.';
    const first = await signIn('google', person());
    const code = first.landing.searchParams.get('oauth')!;
    const cookie = first.browser.cookie;
    expect((await exchange(code, first.browser)).code).toBe(200);
    const replay = await exchange(code, { cookie });
    expect(replay).toMatchObject({ status: 200, code: 422, message: expired });
    expect(bindingCookieOf(replay.headers)).toBeNull();

    // Planted in another browser (login CSRF), one without the cookie or with a sign-in of its own: refused there, and spent.
    const startedItsOwn = newBrowser();
    await start('google', {}, startedItsOwn);
    for (const elsewhere of [newBrowser(), startedItsOwn]) {
      const planted = await signIn('google', person());
      expect(await exchange(planted.landing.searchParams.get('oauth'), elsewhere)).toMatchObject({ status: 200, code: 422, message: expired });
      expect((await exchange(planted.landing.searchParams.get('oauth'), planted.browser)).code).toBe(422);
    }

    const late = await signIn('google', person());
    const lateCode = late.landing.searchParams.get('oauth')!;
    await execute(sql`update users.oauth_codes set expires_at = now() - interval '1 second' where code_hash = ${sha256(lateCode)}`);
    expect(await exchange(lateCode, late.browser)).toMatchObject({ status: 200, code: 422, message: expired });

    const valid = await signIn('google', person());
    for (const body of [{}, { code: 'short' }, { code: 42 }, { code: null }]) {
      const answer = await site.call('POST', '/api/user/oauth/exchange', { body, headers: { cookie: valid.browser.cookie! } });
      expect(answer.status).toBe(200);
      expect(answer.code).toBe(422);
    }
    // The browser's binding outlives a refused call: its own code still works.
    expect((await exchange(valid.landing.searchParams.get('oauth'), valid.browser)).code).toBe(200);
  });
});

describe('hostile input', () => {
  it('never answers a 5xx on the start, the callback or the exchange', async () => {
    const hostile = ['', ' ', "' or 1=1 --", '%00', '\u202e', 'x'.repeat(5000), '../../etc/passwd', '<script>'];
    for (const value of hostile) {
      const query = `redirect=${encodeURIComponent(value)}&code=${encodeURIComponent(value)}&state=${encodeURIComponent(value)}&error=${encodeURIComponent(value)}`;
      // The cookie header as a browser could send it: no control characters, and no more than 4000 bytes.
      const cookie = `${BINDING_COOKIE}=${encodeURIComponent(value).slice(0, 4000)}; ${BINDING_COOKIE}=x`;
      for (const path of ['/api/user/oauth/google/start', '/api/user/oauth/google/callback', `/api/user/oauth/${encodeURIComponent(value) || 'x'}/start`]) {
        for (const twice of ['', '&redirect=twice&state=twice']) {
          const response = await fetch(`${site.url}${path}?${query}${twice}`, { redirect: 'manual', headers: { cookie } });
          expect(response.status, `${path} ${value.slice(0, 20)}`).toBeLessThan(500);
          await response.body?.cancel();
        }
      }
      const exchanged = await site.call('POST', '/api/user/oauth/exchange', { body: { code: value }, headers: { cookie } });
      expect(exchanged.status).toBe(200);
      expect(exchanged.code).toBe(422);
    }
  });
});

describe('signing in with Facebook (OAuth 2.0 and the Graph API)', () => {
  it('a guest signs in with Facebook: code flow with PKCE and state, the email from /me', async () => {
    const guest = await guestWithFavorite('video-3');
    const email = `fb-${Date.now()}@example.com`;
    const { browser, landing, authorization } = await signIn('facebook', person({ email }));
    expect(Object.fromEntries(authorization)).toMatchObject({
      client_id: 'cliffhanger-facebook',
      response_type: 'code',
      redirect_uri: callbackOf('facebook'),
      scope: 'email',
      code_challenge_method: 'S256',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(authorization.has('nonce')).toBe(false);
    const member = await exchange(landing.searchParams.get('oauth'), browser, guest.token);
    expect(member.data).toMatchObject({ id: guest.id, kind: 'member', email });
    expect(await favoritesOf(member.headers.get('x-user-token')!)).toEqual(['video-3']);
  });

  it('a Facebook account without a confirmed email cannot sign up', async () => {
    const { landing } = await signIn('facebook', person({ emailVerified: false }));
    expect(landing.searchParams.get('oauthError')).toBe('email');
  });
});
