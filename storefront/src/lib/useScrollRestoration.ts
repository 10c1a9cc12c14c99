import { useEffect, useLayoutEffect } from 'react';
import { useLocation, useNavigationType } from 'react-router-dom';

const positions = new Map<string, number>();

/**
 * What a full page load does with scrolling, for client-side navigation: a new page starts at the
 * top, Back returns to where the page was left, and a change of the same page's query (a tab, a
 * category chip, the next episode) leaves the scroll alone.
 */
export function useScrollRestoration(): void {
  const { key, pathname } = useLocation();
  const type = useNavigationType();

  useEffect(() => {
    const remember = () => positions.set(key, window.scrollY);
    window.addEventListener('scroll', remember, { passive: true });
    return () => window.removeEventListener('scroll', remember);
  }, [key]);

  useLayoutEffect(() => {
    if (type === 'POP') {
      const saved = positions.get(key);
      if (saved !== undefined) window.scrollTo(0, saved);
    } else {
      window.scrollTo(0, 0);
    }
    // Only a new path moves the scroll (so not `key` or `type`): a query change of the same page does not.
  }, [pathname]);
}
