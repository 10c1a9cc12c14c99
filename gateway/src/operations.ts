import { Router } from 'express';
import { failure, ok, type Platform } from '@cliffhanger/platform';

/** Why a part cannot serve yet (still starting), or null. */
export type Readiness = () => Promise<string | null>;

/** /healthz (the process answers), /readyz (database and bus reachable, nothing still starting), /metrics (Prometheus). */
export function operationsRoutes(platform: Pick<Platform, 'database' | 'bus' | 'metrics'>, readiness?: Readiness): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json(ok({ status: 'alive' }));
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await Promise.all([platform.database.ping(), platform.bus.ping()]);
      const starting = await readiness?.();
      if (starting) {
        res.status(503).json(failure(503, `starting: ${starting}`));
        return;
      }
      res.json(ok({ status: 'ready', database: platform.database.kind, bus: platform.bus.kind }));
    } catch (error) {
      res.status(503).json(failure(503, `not ready: ${(error as Error).message}`));
    }
  });
  router.get('/metrics', async (_req, res) => {
    res.type(platform.metrics.registry.contentType).send(await platform.metrics.registry.metrics());
  });
  return router;
}
