import { useEffect } from 'react';

let hydrated!: () => void;
/**
 * Settles once React has hydrated the page itself, not only the shell around it: hydrateRoot commits
 * the shell first and the content of a Suspense boundary (the page, AppShell) in a later pass.
 * main.tsx holds the viewer's own data back until then, so that every render React hydrates with is
 * the server's; a page rendered on the client settles it at once.
 */
export const pageHydration = new Promise<void>((resolve) => (hydrated = resolve));

/** Releases whatever waits for the page's hydration (idempotent). */
export const pageHydrated = (): void => hydrated();

/**
 * Rendered last inside the page's Suspense boundary, and in what replaces a page that failed: its
 * effect runs once that content is committed (on the server it renders nothing and runs nothing).
 */
export function PageCommitted() {
  useEffect(pageHydrated, []);
  return null;
}
