import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule } from '@cliffhanger/platform';
import { analyticsAdminRoutes } from './admin-routes.ts';
import { forwardConversions } from './conversions.ts';
import { subscribeAnalyticsConsumers } from './events.ts';
import { createLake } from './lake.ts';
import { createAnalyticsReports } from './reports.ts';
import { createPixelEdge } from './pixel.ts';
import { createHitEnricher } from './pixel-enricher.ts';
import { analyticsRoutes } from './routes.ts';
import { createAnalyticsService } from './service.ts';

export const analyticsMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

/**
 * The statics.png pixel (answered and stored by every gateway; its hits become statics.hit events
 * where this module runs), the advertising pixel configuration, and the analyst's aggregates.
 */
export const analyticsModule = defineModule<never>({
  name: 'analytics',
  migrations: analyticsMigrations,
  publicPrefixes: ['/api/reports', '/api/admin/analytics'],
  // statics.png is answered by every gateway itself, in front of its Express stack.
  edge: ({ platform, authenticate }) => createPixelEdge({ platform, authenticate }),
  init: ({ platform }) => {
    // Consumers subscribe before the platform starts delivering.
    subscribeAnalyticsConsumers(platform.bus, platform.logger);
    // Only with FACEBOOK_CAPI_TOKEN or TIKTOK_EVENTS_TOKEN; its sender runs as background work.
    const conversions = forwardConversions(platform);
    // The hits every gateway's pixel stored become statics.hit events here.
    const enricher = createHitEnricher(platform);
    // Every event also as Parquet files in the bucket or DATA_DIR/lake (docs/analytics.md).
    const lake = createLake(platform);
    return {
      routes: [analyticsRoutes(createAnalyticsService(platform)), analyticsAdminRoutes(createAnalyticsReports(platform), platform.config.ADMIN_TOKEN)],
      background: () => {
        const running = [enricher.start(), lake.start(), ...(conversions ? [conversions.background()] : [])];
        return { stop: async () => void (await Promise.all(running.map((work) => work.stop()))) };
      },
    };
  },
});
