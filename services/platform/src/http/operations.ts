import { Router, type NextFunction, type Request, type Response } from 'express';
import { failure, ok } from '../envelope.ts';
import type { Readiness } from '../modules/module.ts';
import type { Platform } from '../platform.ts';
import { sameSecret } from './internal-http.ts';

/** Once shutdown starts, every answer closes its connection, so a drained server has none left open. */
export function closeWhenStopping(platform: Pick<Platform, 'lifecycle'>) {
  return (_req: Request, res: Response, next: NextFunction) => {
    if (platform.lifecycle.stopping) res.setHeader('connection', 'close');
    next();
  };
}

type OperationsPlatform = Pick<Platform, 'database' | 'bus' | 'metrics' | 'lifecycle' | 'logger' | 'config'>;

/**
 * /healthz (the process answers), /readyz (database and bus reachable, nothing still starting),
 * /metrics (Prometheus; in production only with `Authorization: Bearer <ADMIN_TOKEN>`).
 */
export function operationsRoutes(platform: OperationsPlatform, readiness?: Readiness): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json(ok({ status: 'alive' }));
  });
  router.get('/readyz', async (_req, res) => {
    if (platform.lifecycle.stopping) {
      res.status(503).json(failure(503, 'stopping'));
      return;
    }
    const unreachable = await firstUnreachable(platform);
    if (unreachable) {
      res.status(503).json(failure(503, `not ready: ${unreachable}`));
      return;
    }
    const starting = await readiness?.();
    if (starting) {
      res.status(503).json(failure(503, `starting: ${starting}`));
      return;
    }
    res.json(ok({ status: 'ready', database: platform.database.kind, bus: platform.bus.kind }));
  });
  router.get('/metrics', metricsAccess(platform.config), async (_req, res) => {
    res.type(platform.metrics.registry.contentType).send(await platform.metrics.registry.metrics());
  });
  return router;
}

/** Which dependency does not answer, by name only: a driver's message (hosts, users) stays in the log. */
async function firstUnreachable(platform: OperationsPlatform): Promise<'database' | 'bus' | null> {
  for (const [name, ping] of [
    ['database', () => platform.database.ping()],
    ['bus', () => platform.bus.ping()],
  ] as const) {
    try {
      await ping();
    } catch (error) {
      platform.logger.warn({ err: error }, `not ready: ${name} unreachable`);
      return name;
    }
  }
  return null;
}

/**
 * Metrics name routes, queues and the process's internals: public on a laptop, and in production
 * only for a scraper that sends ADMIN_TOKEN (none at all without one).
 */
function metricsAccess(config: OperationsPlatform['config']) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (config.NODE_ENV !== 'production') return next();
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (config.ADMIN_TOKEN && sameSecret(config.ADMIN_TOKEN, given)) return next();
    res.status(401).json(failure(401, 'Metrics need the admin token'));
  };
}
