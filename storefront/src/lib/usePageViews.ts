import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { trackEvent } from '../api/analytics';
import { reportQueries } from '../api/reportQueries';

// Ad-pixel ids the operator configured (GET /api/reports); page views carry them so the analytics
// service can forward conversions server-side instead of loading third-party scripts in the page.
const PIXEL_KEYS = ['facebook_pixel_id', 'google_analytics', 'tiktok_pixel', 'bigo_pixel'] as const;

export function usePageViews(): void {
  const location = useLocation();
  const pixels = useQuery(reportQueries.pixelConfig());
  const ready = !pixels.isPending;

  useEffect(() => {
    if (!ready) return;
    const configured = Object.fromEntries(
      (pixels.data ?? [])
        .filter((item) => (PIXEL_KEYS as readonly string[]).includes(item.config_key) && item.config_value)
        .map((item) => [item.config_key, item.config_value]),
    );
    trackEvent('page_view', { path: location.pathname, ...configured });
  }, [location.pathname, ready, pixels.data]);
}
