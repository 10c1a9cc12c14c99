import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** A person with an account at the test provider. */
export interface ProviderAccount {
  email?: string;
  emailVerified?: boolean;
}

export interface ProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/**
 * A real OpenID provider (oidc-provider) on a free loopback port, standing in for Google (OpenID
 * Connect, found by discovery) and for Facebook (its OAuth 2.0 code flow, and the Graph API's
 * `/v21.0/me` answered from the access tokens it issued, with the email only when confirmed, as
 * Facebook does). PKCE is required of every client. Who signs in is whoever the suite says is at the
 * keyboard (`signInAs`): the login and consent prompts are answered for them, or refused for `null`.
 */
export async function startOpenIdProvider(clients: ProviderClient[]) {
  let provider: Provider | undefined;
  const server = http.createServer((req, res) => void answer(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const accounts = new Map<string, ProviderAccount>();
  let atKeyboard: string | null = null;
  /** The query of every authorization request the provider received, in order. */
  const authorizationRequests: URLSearchParams[] = [];

  const key = { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };
  provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    jwks: { keys: [key] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // As Google does: the ID token itself carries the email.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: Object.fromEntries(['AccessToken', 'AuthorizationCode', 'Grant', 'IdToken', 'Interaction', 'Session'].map((model) => [model, 600])),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_context: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_context, id) => {
      const account = accounts.get(id);
      return account && { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: account.emailVerified ?? true }) };
    },
  });
  const oidc = provider;
  const handle = oidc.callback();

  async function answer(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', issuer);
    try {
      if (url.pathname === '/auth') authorizationRequests.push(url.searchParams);
      if (url.pathname.startsWith('/interaction/')) return await interact(req, res);
      if (url.pathname === '/v21.0/me') return await graphMe(req, res);
      handle(req, res);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  }

  async function interact(req: http.IncomingMessage, res: http.ServerResponse) {
    const { prompt, params, session, grantId } = await oidc.interactionDetails(req, res);
    if (atKeyboard === null) {
      return oidc.interactionFinished(req, res, { error: 'access_denied', error_description: 'The viewer said no' }, { mergeWithLastSubmission: false });
    }
    if (prompt.name === 'login') return oidc.interactionFinished(req, res, { login: { accountId: atKeyboard } }, { mergeWithLastSubmission: false });
    const grant = new oidc.Grant({ accountId: session!.accountId, clientId: params.client_id });
    if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
    if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
    return oidc.interactionFinished(req, res, { consent: { grantId: grantId ?? (await grant.save()) } }, { mergeWithLastSubmission: true });
  }

  async function graphMe(req: http.IncomingMessage, res: http.ServerResponse) {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const token = bearer ? await oidc.AccessToken.find(bearer) : undefined;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (!token) return json(400, { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } });
    const account = accounts.get(token.accountId);
    return json(200, { id: token.accountId, ...(account?.email && account.emailVerified !== false ? { email: account.email } : {}) });
  }

  return {
    issuer,
    accounts,
    authorizationRequests,
    /** Who answers the provider's prompts from now on; null says no. */
    signInAs(accountId: string | null) {
      atKeyboard = accountId;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export type OpenIdProvider = Awaited<ReturnType<typeof startOpenIdProvider>>;

/**
 * A browser at the provider: follows its redirects with its own cookies from the authorization URL
 * until the provider sends the browser back to `callbackPrefix`, and answers that address.
 */
export async function throughProvider(authorizationUrl: string, callbackPrefix: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 12; hop++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const name = pair.slice(0, pair.indexOf('=')).trim();
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value && !/max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.set(name, value);
      else jar.delete(name);
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${(await response.text()).slice(0, 300)}`);
    await response.body?.cancel();
    url = new URL(location, url);
    if (url.href.startsWith(callbackPrefix)) return url;
  }
  throw new Error('the provider never sent the browser back');
}
