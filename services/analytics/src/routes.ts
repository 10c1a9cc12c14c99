import { Router } from 'express';
import { ok } from '@cliffhanger/platform';
import type { AnalyticsService } from './service.ts';

/** GET /api/reports; statics.png is the gateway's edge call (pixel.ts). */
export function analyticsRoutes(analytics: AnalyticsService): Router {
  const router = Router();
  router.get('/api/reports', (_req, res) => {
    res.json(ok(analytics.pixelConfig()));
  });
  return router;
}
