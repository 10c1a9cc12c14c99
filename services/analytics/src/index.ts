export { analyticsRoutes } from './routes.ts';
export { createAnalyticsService, type AnalyticsService, type PixelConfig } from './service.ts';
