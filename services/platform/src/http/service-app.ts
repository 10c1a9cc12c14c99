import express, { type Router } from 'express';
import { systemContext } from '../context.ts';
import { Forbidden } from '../errors.ts';
import type { Readiness } from '../modules/module.ts';
import type { Platform } from '../platform.ts';
import { apiNotFound, errorEnvelope } from './error-envelope.ts';
import { jsonBody } from './express-request.ts';
import { inputGuard } from './input-guard.ts';
import { CONTEXT_HEADER, decodeContext, INTERNAL_TOKEN_HEADER, sameSecret } from './internal-http.ts';
import { inSeries } from './layers.ts';
import { closeWhenStopping, operationsRoutes } from './operations.ts';

/**
 * The HTTP face of one service running apart (TARGET=user, catalog, transcoder): operations
 * endpoints for probes, and its routes for the gateway and other services only, proven by the
 * shared INTERNAL_TOKEN. The request context comes from the gateway, never from the browser.
 */
export function createServiceApp(
  platform: Pick<Platform, 'database' | 'bus' | 'metrics' | 'logger' | 'lifecycle' | 'config'>,
  internalToken: string,
  routes: Router[],
  readiness?: Readiness,
) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(closeWhenStopping(platform));
  app.use(operationsRoutes(platform, readiness));
  const internalCaller: express.RequestHandler = (req, _res, next) => {
    if (!sameSecret(internalToken, req.get(INTERNAL_TOKEN_HEADER))) return next(new Forbidden('Internal calls only'));
    req.context = decodeContext(req.get(CONTEXT_HEADER)) ?? systemContext();
    next();
  };
  app.use(inSeries('internalCall', internalCaller, jsonBody(), inputGuard));
  for (const router of routes) app.use(router);
  app.use(apiNotFound);
  app.use(errorEnvelope(platform.logger));
  return app;
}
