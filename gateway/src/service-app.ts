import express, { type Router } from 'express';
import { decodeContext, Forbidden, INTERNAL_TOKEN_HEADER, CONTEXT_HEADER, sameSecret, systemContext, type Platform } from '@cliffhanger/platform';
import { apiNotFound, errorEnvelope } from './errors.ts';
import { operationsRoutes, type Readiness } from './operations.ts';

/**
 * The HTTP face of one service running apart (TARGET=user, catalog, transcoder): operations
 * endpoints for probes, and its routes for the gateway and other services only, proven by the
 * shared INTERNAL_TOKEN. The request context comes from the gateway, never from the browser.
 */
export function createServiceApp(
  platform: Pick<Platform, 'database' | 'bus' | 'metrics' | 'logger'>,
  internalToken: string,
  routes: Router[],
  readiness?: Readiness,
) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(operationsRoutes(platform, readiness));
  app.use((req, _res, next) => {
    if (!sameSecret(internalToken, req.get(INTERNAL_TOKEN_HEADER))) return next(new Forbidden('Internal calls only'));
    req.context = decodeContext(req.get(CONTEXT_HEADER)) ?? systemContext();
    next();
  });
  app.use(express.json({ limit: '64kb', strict: false }));
  for (const router of routes) app.use(router);
  app.use(apiNotFound);
  app.use(errorEnvelope(platform.logger));
  return app;
}
