import type { Config } from '@cliffhanger/platform';

export interface PixelConfig {
  config_key: 'facebook_pixel_id' | 'google_analytics' | 'tiktok_pixel' | 'bigo_pixel';
  config_value: string;
}

/** The advertising pixels the operator configured (GET /api/reports), for the storefront to load. */
export function createAnalyticsService({ config }: { config: Config }) {
  const pixels: PixelConfig[] = (
    [
      ['facebook_pixel_id', config.FACEBOOK_PIXEL_ID],
      ['google_analytics', config.GOOGLE_ANALYTICS_ID],
      ['tiktok_pixel', config.TIKTOK_PIXEL_ID],
      ['bigo_pixel', config.BIGO_PIXEL_ID],
    ] as const
  ).flatMap(([config_key, config_value]) => (config_value ? [{ config_key, config_value }] : []));

  return {
    pixelConfig: (): PixelConfig[] => pixels,
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
