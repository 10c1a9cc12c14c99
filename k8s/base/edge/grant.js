// The playback grant of services/catalog/src/grants.ts, checked by nginx's JavaScript module (njs):
// `base64url(episodeId:expiry).signature`, the signature HMAC-SHA256 of the first part under
// MEDIA_SECRET, base64url without padding. The same token, the same answers as Node's /media.
import crypto from 'crypto';

const secret = process.env.MEDIA_SECRET || '';

/** Equal strings in a time that does not tell how much of them matched. */
function sameText(a, b) {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The grant in $grant_token allows episode $grant_episode now: "1", else "0" (no secret: never). */
function allows(r) {
  const token = r.variables.grant_token || '';
  const episodeId = r.variables.grant_episode || '';
  const parts = token.split('.');
  if (secret.length < 32 || parts.length !== 2 || !parts[0] || !parts[1]) return '0';
  const expected = crypto.createHmac('sha256', secret).update(parts[0]).digest('base64url');
  if (!sameText(parts[1], expected)) return '0';
  const decoded = Buffer.from(parts[0], 'base64url').toString();
  const cut = decoded.lastIndexOf(':');
  return decoded.slice(0, cut) === episodeId && Number(decoded.slice(cut + 1)) * 1000 > Date.now() ? '1' : '0';
}

export default { allows };
