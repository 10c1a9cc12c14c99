import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a playback URL works: an episode plus pauses, not a link to share for days. */
export const GRANT_TTL_SECONDS = 4 * 3600;

export interface PlaybackGrant {
  token: string;
  expiresAt: Date;
}

/** Where a stored key is served: covers publicly, everything else only through a grant. */
export const mediaUrlOf = (key: string) => `/media/${key}`;

const signatureOf = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

/**
 * A grant is `base64url(episodeId:expiry).signature`, HMAC-SHA256 under the server's media
 * secret. It sits in the media path, so the relative URLs inside playlists carry it along.
 */
export function issuePlaybackGrant(secret: string, episodeId: string, now = Date.now(), ttlSeconds = GRANT_TTL_SECONDS): PlaybackGrant {
  const expires = Math.floor(now / 1000) + ttlSeconds;
  const payload = Buffer.from(`${episodeId}:${expires}`).toString('base64url');
  return { token: `${payload}.${signatureOf(secret, payload)}`, expiresAt: new Date(expires * 1000) };
}

/** True when the grant was signed by us, for this very episode, and has not expired. */
export function grantAllows(secret: string, token: string, episodeId: string, now = Date.now()): boolean {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length) return false;
  const expected = Buffer.from(signatureOf(secret, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  const decoded = Buffer.from(payload, 'base64url').toString();
  const cut = decoded.lastIndexOf(':');
  return decoded.slice(0, cut) === episodeId && Number(decoded.slice(cut + 1)) * 1000 > now;
}
