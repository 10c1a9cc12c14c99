import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule } from '@cliffhanger/platform';
import { analyticsAdminRoutes } from './admin-routes.ts';
import { subscribeAnalyticsConsumers } from './events.ts';
import { createAnalyticsReports } from './reports.ts';
import { analyticsRoutes, answerPixel } from './routes.ts';
import { createAnalyticsService } from './service.ts';

export const analyticsMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

/** The statics.png pixel (hits become statics.hit events), the advertising pixel configuration, and the analyst's aggregates. */
export const analyticsModule = defineModule<never>({
  name: 'analytics',
  migrations: analyticsMigrations,
  publicPrefixes: ['/api/statics.png', '/api/reports', '/api/admin/analytics'],
  // Whatever its query, the pixel answers its PNG: the service keeps what makes sense of it.
  anyInput: ['/api/statics.png'],
  // Over its limit a client still gets the PNG (a page must not break on its pixel); the hit is not recorded.
  rateLimited: [{ method: 'GET', path: '/api/statics.png', limit: 'pixel', overLimit: (_req, res) => answerPixel(res) }],
  init: ({ platform }) => {
    // Consumers subscribe before the platform starts delivering.
    subscribeAnalyticsConsumers(platform.bus, platform.logger);
    return {
      routes: [analyticsRoutes(createAnalyticsService(platform)), analyticsAdminRoutes(createAnalyticsReports(platform), platform.config.ADMIN_TOKEN)],
    };
  },
});
