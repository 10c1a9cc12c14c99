import { Router, type Response } from 'express';
import { ok } from '@cliffhanger/platform';
import type { AnalyticsService } from './service.ts';

// The smallest transparent PNG: 1x1, one byte of alpha.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** The pixel's answer, whether or not the hit was recorded: a page never sees an error from it. */
export function answerPixel(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.type('png').send(PIXEL);
}

export function analyticsRoutes(analytics: AnalyticsService): Router {
  const router = Router();
  router.get('/api/statics.png', async (req, res) => {
    await analytics.recordHit(req.context, req.query as Record<string, unknown>);
    answerPixel(res);
  });
  router.get('/api/reports', (_req, res) => {
    res.json(ok(analytics.pixelConfig()));
  });
  return router;
}
