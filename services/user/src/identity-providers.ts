import * as oidc from 'openid-client';
import type { Logger } from '@cliffhanger/platform';

export const PROVIDER_NAMES = ['google', 'facebook'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

const GRAPH_VERSION = 'v21.0';

/**
 * The providers as data. Google is OpenID Connect: the ID token says who signed in (signature,
 * issuer, audience, expiry and nonce checked by openid-client). Facebook's discovery document offers
 * ID tokens only by the implicit flow (no token endpoint), so its login is the OAuth 2.0 code flow
 * with PKCE, and who signed in comes from the Graph API's /me, which answers only a confirmed email.
 */
const PROVIDERS = {
  google: { protocol: 'openid', issuer: 'https://accounts.google.com', scope: 'openid email' },
  facebook: {
    protocol: 'oauth',
    issuer: 'https://www.facebook.com',
    scope: 'email',
    endpoints: {
      authorization_endpoint: `https://www.facebook.com/${GRAPH_VERSION}/dialog/oauth`,
      token_endpoint: `https://graph.facebook.com/${GRAPH_VERSION}/oauth/access_token`,
    },
    profilePath: `/${GRAPH_VERSION}/me?fields=id,email`,
  },
} as const;

export interface ProviderSettings {
  clientId: string;
  clientSecret: string;
  /** Another server in the provider's place, found by discovery (the tests' local OpenID provider). */
  issuer?: string | undefined;
}

export interface SignInProviderSettings {
  google?: ProviderSettings | undefined;
  facebook?: ProviderSettings | undefined;
  /** Where Facebook's Graph API answers (FACEBOOK_GRAPH_URL). */
  facebookGraphUrl: string;
}

/** Who signed in, as the provider vouches: its stable id for them, and their email if it confirmed one. */
export interface ProviderProfile {
  subject: string;
  verifiedEmail: string | null;
}

/** A provider's answer that does not prove a sign-in: the viewer said no, or it failed a check. */
export class SignInRefused extends Error {
  constructor(
    readonly reason: 'denied' | 'provider',
    message: string,
  ) {
    super(message);
  }
}

/** What went wrong, for the log: the provider's error code, or the check that failed (openid-client names it in the cause). */
function reasonOf(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError) return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}

const isLoopbackHttp = (value: string) => {
  const url = new URL(value);
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
};

/**
 * The OAuth 2.0 / OpenID Connect side of social sign-in, through openid-client: the only code that
 * speaks to Google and Facebook. Each configured provider's metadata is discovered on first use and
 * kept (a failed discovery is tried again on the next sign-in).
 */
export function createIdentityProviders(settings: SignInProviderSettings, logger: Logger) {
  const configured = PROVIDER_NAMES.filter((name) => settings[name]);
  const configurations = new Map<ProviderName, Promise<oidc.Configuration>>();
  const graphUrl = settings.facebookGraphUrl.replace(/\/+$/, '');

  async function configure(name: ProviderName): Promise<oidc.Configuration> {
    const { clientId, clientSecret, issuer } = settings[name]!;
    const provider = PROVIDERS[name];
    // http is accepted only on this machine (config), for the tests' local provider.
    const insecure = [issuer ?? provider.issuer, ...(name === 'facebook' ? [graphUrl] : [])].some(isLoopbackHttp);
    const execute = insecure ? [oidc.allowInsecureRequests] : [];
    let config: oidc.Configuration;
    if (issuer || !('endpoints' in provider)) {
      config = await oidc.discovery(new URL(issuer ?? provider.issuer), clientId, clientSecret, undefined, { execute, timeout: 10 });
    } else {
      config = new oidc.Configuration({ issuer: provider.issuer, ...provider.endpoints }, clientId, clientSecret);
      execute.forEach((apply) => apply(config));
    }
    config.timeout = 10;
    return config;
  }

  function configurationOf(name: ProviderName): Promise<oidc.Configuration> {
    let config = configurations.get(name);
    if (!config) {
      config = configure(name);
      configurations.set(name, config);
      config.catch((error: unknown) => {
        configurations.delete(name);
        logger.warn({ err: error, provider: name }, 'sign-in provider discovery failed');
      });
    }
    return config;
  }

  async function facebookProfile(config: oidc.Configuration, accessToken: string): Promise<ProviderProfile> {
    const answer = await oidc.fetchProtectedResource(config, accessToken, new URL(graphUrl + PROVIDERS.facebook.profilePath), 'GET');
    const body = (await answer.json().catch(() => null)) as { id?: unknown; email?: unknown } | null;
    if (!answer.ok || typeof body?.id !== 'string') throw new SignInRefused('provider', `Graph API /me answered ${answer.status}`);
    return { subject: body.id, verifiedEmail: typeof body.email === 'string' ? body.email : null };
  }

  async function openIdProfile(config: oidc.Configuration, tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): Promise<ProviderProfile> {
    const claims = tokens.claims();
    if (!claims) throw new SignInRefused('provider', 'no ID token');
    let { email, email_verified: verified } = claims;
    // A provider may leave the email out of the ID token; its userinfo, for the same subject, has it.
    if (email === undefined && config.serverMetadata().userinfo_endpoint) {
      ({ email, email_verified: verified } = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub));
    }
    return { subject: claims.sub, verifiedEmail: typeof email === 'string' && verified === true ? email : null };
  }

  return {
    configured: (): ProviderName[] => [...configured],
    isConfigured: (name: string): name is ProviderName => (configured as string[]).includes(name),

    /**
     * The provider's sign-in page for one attempt: the code flow with PKCE (S256) and state, and for
     * OpenID Connect a nonce, answered for the caller to keep for the callback.
     */
    async authorizationUrl(name: ProviderName, attempt: { redirectUri: string; state: string; codeVerifier: string }): Promise<{ url: URL; nonce: string | null }> {
      const config = await configurationOf(name);
      const nonce = PROVIDERS[name].protocol === 'openid' ? oidc.randomNonce() : null;
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: attempt.redirectUri,
        response_type: 'code',
        scope: PROVIDERS[name].scope,
        state: attempt.state,
        code_challenge: await oidc.calculatePKCECodeChallenge(attempt.codeVerifier),
        code_challenge_method: 'S256',
        ...(nonce ? { nonce } : {}),
      });
      return { url, nonce };
    },

    /**
     * Checks the provider's answer at our callback (`callbackUrl`: the redirect URI with the query
     * it came with) against the attempt, trades the code for tokens with the PKCE verifier, and
     * answers who signed in. Throws SignInRefused for anything that does not prove a sign-in.
     */
    async profileFrom(name: ProviderName, callbackUrl: URL, attempt: { state: string; codeVerifier: string; nonce: string | null }): Promise<ProviderProfile> {
      try {
        const config = await configurationOf(name);
        const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: attempt.codeVerifier,
          expectedState: attempt.state,
          ...(attempt.nonce ? { expectedNonce: attempt.nonce } : { idTokenExpected: false }),
        });
        return PROVIDERS[name].protocol === 'openid' ? await openIdProfile(config, tokens) : await facebookProfile(config, tokens.access_token);
      } catch (error) {
        if (error instanceof SignInRefused) throw error;
        if (error instanceof oidc.AuthorizationResponseError && error.error === 'access_denied') throw new SignInRefused('denied', error.message);
        throw new SignInRefused('provider', reasonOf(error));
      }
    },
  };
}

export type IdentityProviders = ReturnType<typeof createIdentityProviders>;
