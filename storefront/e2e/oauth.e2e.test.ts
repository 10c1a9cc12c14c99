import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startSite, type RunningSite } from './harness';

// Signing in with Google as a viewer does it, against a real OpenID provider this suite starts on
// loopback (oidc-provider, with its own login and consent pages) in Google's place: the site finds
// it by discovery (GOOGLE_ISSUER). The provider listens first, since the site needs its address, and
// learns the site's callback address once the site is up.
let site: RunningSite;
let browser: Browser;
let handle: http.RequestListener = (_req, res) => void res.writeHead(503).end();
const provider = http.createServer((req, res) => handle(req, res));
const pageErrors: string[] = [];
const CLIENT = { id: 'cliffhanger-e2e', secret: randomBytes(24).toString('hex') };
let issuer = '';

beforeAll(async () => {
  provider.listen(0, '127.0.0.1');
  await once(provider, 'listening');
  issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  site = await startSite({
    own: true,
    env: { DEMO: '0', GOOGLE_CLIENT_ID: CLIENT.id, GOOGLE_CLIENT_SECRET: CLIENT.secret, GOOGLE_ISSUER: issuer },
  });
  site.keepSecret(CLIENT.secret);
  const key = { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'e2e', use: 'sig', alg: 'RS256' };
  handle = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${site.baseUrl}/api/user/oauth/google/callback`],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [key] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: Object.fromEntries(['AccessToken', 'AuthorizationCode', 'Grant', 'IdToken', 'Interaction', 'Session'].map((model) => [model, 600])),
    // Whatever login is typed on the provider's page is that person's verified email.
    findAccount: (_context, id) => ({ accountId: id, claims: () => ({ sub: id, email: id, email_verified: true }) }),
  }).callback();
  browser = await launchChromium();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  provider.closeAllConnections();
  provider.close();
});

async function newSeries(title: string): Promise<string> {
  const response = await fetch(`${site.baseUrl}/api/admin/videos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${site.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title, tags: ['Romance'] }),
  });
  const envelope = (await response.json()) as { code: number; data: { video: { id: string } } };
  expect(envelope.code).toBe(200);
  return envelope.data.video.id;
}

const BINDING_COOKIE = 'cliffhanger_sign_in';
const bindingCookie = async (context: BrowserContext) =>
  (await context.cookies(`${site.baseUrl}/api/user/oauth/exchange`)).find((cookie) => cookie.name === BINDING_COOKIE);

/** Signs in at the provider's own pages: its login form, then its consent. */
async function atProvider(page: Page, email: string) {
  await page.waitForURL((url) => url.origin === issuer);
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

const whoAmI = (page: Page) =>
  page.evaluate(async () => {
    const token = localStorage.getItem('cliffhanger.userToken');
    const answer = await fetch('/api/user', { headers: { 'x-user-token': token ?? '' } });
    return ((await answer.json()) as { data: { id: string; kind: string; email: string | null } }).data;
  });

describe('signing in with Google in the storefront', () => {
  it('a guest adds a series to My List, signs in with the OpenID provider and keeps it', async () => {
    const title = `Social Sign-in ${Date.now()}`;
    const videoId = await newSeries(title);
    const context = await browser.newContext({ baseURL: site.baseUrl, locale: 'en-US', viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    // The provider's code and state on the way back, and the site's one-time code: none may reach its logs.
    page.on('request', (request) => {
      const { searchParams } = new URL(request.url());
      for (const name of ['code', 'state', 'oauth']) if (searchParams.get(name)) site.keepSecret(searchParams.get(name)!);
      const code = request.url().endsWith('/api/user/oauth/exchange') ? (JSON.parse(request.postData() ?? '{}') as { code?: string }).code : undefined;
      if (code) site.keepSecret(code);
    });

    await page.goto(`/videos/${encodeURIComponent(videoId)}`);
    await page.getByRole('button', { name: 'My List' }).click();
    await page.getByRole('button', { name: 'In My List' }).waitFor();
    const guest = await whoAmI(page);
    expect(guest.kind).toBe('guest');

    await page.locator('.header__account').click();
    await page.waitForURL('**/login');
    await page.getByRole('button', { name: 'Continue with Google' }).click();

    const email = `viewer-${Date.now()}@example.com`;
    await atProvider(page, email);
    // The start bound the sign-in to this browser: a cookie for the sign-in calls only, out of scripts' reach
    // (not Secure: this site is http on loopback).
    expect(await bindingCookie(context)).toMatchObject({ path: '/api/user/oauth', httpOnly: true, sameSite: 'Lax', secure: false });

    // Back on the site: the one-time code is exchanged and the viewer lands on their page, signed in.
    await page.waitForURL((url) => url.origin === site.baseUrl && url.pathname === '/my');
    await page.getByText(`Welcome, ${email}`).waitFor();
    expect(await page.locator('.profile__name').textContent()).toBe(email);
    const member = await whoAmI(page);
    expect(member).toMatchObject({ id: guest.id, kind: 'member', email });
    // Spent with the code.
    expect(await bindingCookie(context)).toBeUndefined();

    await page.goto('/favorites');
    await page.getByText(title).waitFor();
    await context.close();
  });

  it('a sign-in link opened in another browser signs nobody in there', async () => {
    // Someone signs in with their own account and stops before the exchange, keeping the code...
    const theirs = await browser.newContext({ baseURL: site.baseUrl, locale: 'en-US' });
    const their = await theirs.newPage();
    let planted = '';
    await their.route('**/api/user/oauth/exchange', async (route) => {
      planted = (JSON.parse(route.request().postData() ?? '{}') as { code?: string }).code ?? '';
      await route.abort();
    });
    await their.goto('/login');
    await their.getByRole('button', { name: 'Continue with Google' }).click();
    await atProvider(their, `attacker-${Date.now()}@example.com`);
    await expect.poll(() => planted).toMatch(/^[A-Za-z0-9_-]{43}$/);
    site.keepSecret(planted);
    await theirs.close();

    // ...and has the viewer's browser open its link (login CSRF): that browser has no cookie of the sign-in.
    const context = await browser.newContext({ baseURL: site.baseUrl, locale: 'en-US' });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    await page.goto(`/login?oauth=${planted}&redirect=/favorites`);
    await page.getByRole('alert').getByText('This sign-in has expired or was already used. Please try again.').waitFor();
    expect((await whoAmI(page)).kind).toBe('guest');
    await page.goto(`/login?oauth=${randomBytes(32).toString('base64url')}&redirect=/favorites`);
    await page.getByRole('alert').getByText('This sign-in has expired or was already used. Please try again.').waitFor();
    expect((await whoAmI(page)).kind).toBe('guest');
    await page.goto('/login?oauthError=denied');
    await page.getByRole('alert').getByText('Sign-in was cancelled.').waitFor();
    await context.close();
  });

  it('threw no errors in any page', () => {
    expect(pageErrors).toEqual([]);
  });

  it('wrote neither the client secret nor a sign-in\'s one-time codes to the site\'s logs', () => {
    expect(site.output()).not.toBe('');
    expect(site.secretsInOutput()).toEqual([]);
  });
});
