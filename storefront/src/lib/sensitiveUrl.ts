/**
 * Secrets that arrive in a landing address, and the one filter every address passes through before it
 * leaves the page (the ad pixels, our own analytics, Sentry).
 *
 * A mailed or redirected link carries a one-time secret in its query: the password reset's token
 * (`/retrievePassword?reset=`), an email verification's (`verify`), a social sign-in's one-time code
 * (`/login?oauth=`), and Stripe's client secret on a payment's return. `stripLandingSecrets` (boot.ts,
 * before any other code of the app runs) reads them into memory and takes them out of the address bar,
 * so no pixel, analytics or Sentry code ever sees them in `location`, nor in a Referer.
 */

/** Read by a page (RetrievePasswordPage, LoginPage, the email verification), kept in memory for it. */
const LANDING_SECRETS = ['reset', 'verify', 'oauth'] as const;
export type LandingSecret = (typeof LANDING_SECRETS)[number];

/** Taken out of the landing address: the landing secrets, and Stripe's, which no page reads. */
const ADDRESS_SECRETS: ReadonlySet<string> = new Set([...LANDING_SECRETS, 'payment_intent_client_secret', 'setup_intent_client_secret']);

/**
 * Never sent on, in any address: those, and what an OAuth provider or a token-bearing link would put in
 * a query or a fragment. `token` (the referrer token) stays in the address bar for attribution, and
 * goes to our own pixel in its own field, never to a vendor.
 */
const SECRET_PARAMS: ReadonlySet<string> = new Set([...ADDRESS_SECRETS, 'code', 'state', 'token', 'access_token', 'id_token', 'refresh_token', 'password']);

const landing = new Map<LandingSecret, string>();

const decodedName = (pair: string) => {
  const name = pair.split('=', 1)[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
};

/** A query or fragment (`a=1&b=2`, no `?` or `#`) without the parameters `names`, the others as they were written. */
const withoutParams = (pairs: string, names: ReadonlySet<string>) =>
  pairs
    .split('&')
    .filter((pair) => !names.has(decodedName(pair)))
    .join('&');

/**
 * `url` (absolute or relative) without the values of secret query or fragment parameters: what the
 * pixels' page URL, page_view and Sentry's events carry.
 */
export function scrubUrl(url: string): string {
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const query = queryAt === -1 ? '' : withoutParams(beforeHash.slice(queryAt + 1), SECRET_PARAMS);
  // A fragment of parameters (an OAuth implicit answer: #access_token=...), or a plain anchor.
  const hash = hashAt === -1 ? '' : url.slice(hashAt + 1);
  const fragment = hash.includes('=') ? withoutParams(hash, SECRET_PARAMS) : hash;
  return (queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt)) + (query ? `?${query}` : '') + (fragment ? `#${fragment}` : '');
}

const SECRET_IN_TEXT = new RegExp(`([?&#](?:${[...SECRET_PARAMS].join('|')})=)[^&#\\s"'<>]*`, 'gi');

/** Free text (an error message, a log line) with the values of secret parameters of any address in it replaced. */
export const scrubText = (text: string): string => text.replace(SECRET_IN_TEXT, '$1[Filtered]');

/**
 * Reads the landing secrets of the address into memory and replaces the address without its secrets
 * (its other parameters as they were, its history entry's state kept, so the router sees the entry it
 * would have). boot.ts calls it before anything else runs.
 */
export function stripLandingSecrets(): void {
  const { pathname, search, hash } = window.location;
  const query = new URLSearchParams(search);
  for (const name of LANDING_SECRETS) {
    const value = query.get(name);
    if (value) landing.set(name, value);
  }
  const kept = withoutParams(search.slice(1), ADDRESS_SECRETS);
  if (kept !== search.slice(1)) window.history.replaceState(window.history.state, '', `${pathname}${kept ? `?${kept}` : ''}${hash}`);
}

/** A secret the page was opened with (`stripLandingSecrets`), or null. */
export const landingSecret = (name: LandingSecret): string | null => landing.get(name) ?? null;
