import { useLocation } from 'react-router-dom';
import { landingSecret, type LandingSecret } from './sensitiveUrl';

/**
 * The secret the page was opened with (`?reset=`, `?oauth=`, taken out of the address by boot.ts), on
 * the history entry the page was opened at only: React Router's first entry has the key "default". A
 * later visit to the same page (the "send a new link" link, a sign-in that failed and came back) has
 * another key, and starts without it.
 */
export function useLandingSecret(name: LandingSecret): string | null {
  return useLocation().key === 'default' ? landingSecret(name) : null;
}
