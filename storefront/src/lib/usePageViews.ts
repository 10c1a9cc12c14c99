import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { reportQueries } from '../api/reportQueries';

// The ad pixels' code comes with the first page view, after the first render, not in the first load.
const conversions = () => import('./conversions');

/**
 * Loads the ad pixels the operator configured (GET /api/reports; none when the call fails) and
 * reports a page view on every route change. A page view made before the pixel ids are known waits
 * for them in lib/adPixels.ts.
 */
export function usePageViews(): void {
  const location = useLocation();
  const pixels = useQuery(reportQueries.pixelConfig());
  const settled = !pixels.isPending;

  useEffect(() => {
    if (settled) import('./adPixels').then((module) => module.loadPixels(pixels.data ?? []));
  }, [settled, pixels.data]);

  useEffect(() => {
    conversions().then((module) => module.trackPageView(location.pathname));
  }, [location.pathname]);
}
