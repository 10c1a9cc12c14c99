import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { failure, ok } from '../envelope.ts';
import type { Readiness } from '../modules/module.ts';
import type { Platform } from '../platform.ts';
import { sameSecret } from './internal-http.ts';
import { onlyUnder } from './layers.ts';

/** Once shutdown starts, every answer closes its connection, so a drained server has none left open. */
export function closeWhenStopping(platform: Pick<Platform, 'lifecycle'>) {
  return (_req: Request, res: Response, next: NextFunction) => {
    if (platform.lifecycle.stopping) res.setHeader('connection', 'close');
    next();
  };
}

type OperationsPlatform = Pick<Platform, 'database' | 'bus' | 'metrics' | 'lifecycle' | 'logger' | 'config'>;

/**
 * /healthz (the process answers), /readyz (database reachable, nothing still starting; the bus's
 * state in the body: `busStatus: 'degraded'` while Kafka is away, which fails nothing, since events
 * wait in the outbox and every request is still served),
 * /metrics (Prometheus; in production only with `Authorization: Bearer <METRICS_TOKEN>`).
 */
export function operationsRoutes(platform: OperationsPlatform, readiness?: Readiness): RequestHandler[] {
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
    const busStatus = platform.bus.health();
    if (busStatus === 'degraded') platform.logger.warn('ready, but the bus is degraded: events wait in the outbox for the broker');
    res.json(ok({ status: 'ready', database: platform.database.kind, bus: platform.bus.kind, busStatus }));
  });
  router.get('/metrics', metricsAccess(platform.config), async (_req, res) => {
    res.type(platform.metrics.registry.contentType).send(await platform.metrics.registry.metrics());
  });
  // Asked only for its own paths: every other call goes past at the cost of a comparison.
  return onlyUnder(['/healthz', '/readyz', '/metrics'], [router]);
}

/** Whether the database does not answer, by name only: a driver's message (hosts, users) stays in the log. */
async function firstUnreachable(platform: OperationsPlatform): Promise<'database' | null> {
  try {
    await platform.database.ping();
    return null;
  } catch (error) {
    platform.logger.warn({ err: error }, 'not ready: database unreachable');
    return 'database';
  }
}

/**
 * Metrics name routes, queues and the process's internals: public on a laptop, and in production
 * only for a scraper that sends METRICS_TOKEN (none at all without one). The admin token does not
 * open them: the scraper's secret is its own, so Prometheus never holds one that changes the catalog,
 * and every pod that is scraped need not hold the admin token.
 */
function metricsAccess(config: OperationsPlatform['config']) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (config.NODE_ENV !== 'production') return next();
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (config.METRICS_TOKEN && sameSecret(config.METRICS_TOKEN, given)) return next();
    res.status(401).json(failure(401, config.METRICS_TOKEN ? 'Metrics need the metrics token' : 'Metrics are off: set METRICS_TOKEN to scrape them'));
  };
}
