import compression from 'compression';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { rateLimit } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import helmet from 'helmet';
import { failure, type Platform } from '@cliffhanger/platform';
import { requestContext, type Authenticate } from './context.ts';
import { apiNotFound, errorEnvelope } from './errors.ts';
import { operationsRoutes, type Readiness } from './operations.ts';
import { storefrontHandler } from './storefront.ts';

export interface GatewayOptions {
  platform: Pick<Platform, 'database' | 'bus' | 'metrics' | 'logger' | 'config' | 'redis'>;
  authenticate: Authenticate;
  /** The services' routers, built with the rate limiter the gateway gives them. */
  routes: (authLimiter: express.RequestHandler) => Router[];
  /** The built storefront, served with history-mode fallback; null serves only the API. */
  storefrontDir: string | null;
  readiness?: Readiness;
  /** /media: mounted ahead of the page middleware (security headers, compression) it has no use for. */
  media?: express.RequestHandler;
}

/** The only thing the browser talks to: /api/*, /media/*, operations and the storefront. */
export function createGatewayApp(options: GatewayOptions): express.Express {
  const { platform } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.set('etag', false);

  app.use(measure(platform.metrics));
  if (options.media) app.use(options.media);
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', 'blob:'],
          mediaSrc: ["'self'", 'blob:'],
          workerSrc: ["'self'", 'blob:'],
          connectSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          scriptSrc: ["'self'"],
          upgradeInsecureRequests: null,
        },
      },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.use(compression());
  app.use(operationsRoutes(platform, options.readiness));

  // Any JSON value parses; a body of the wrong shape is a 422 from the route's schema, not a 400.
  app.use('/api', express.json({ limit: '64kb', strict: false }));
  app.use('/api', requestContext(options.authenticate));
  const authLimiter = rateLimit({
    windowMs: 60_000,
    limit: platform.config.RATE_LIMIT_AUTH_PER_MINUTE,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    // With Redis, every gateway replica counts against one limit; otherwise each process counts alone.
    ...(platform.redis
      ? {
          store: new RedisStore({
            prefix: `${platform.config.REDIS_PREFIX}:rate:`,
            sendCommand: (command: string, ...args: string[]) => platform.redis!.call(command, ...args) as Promise<RedisReply>,
          }),
        }
      : {}),
    handler: (_req, res) => {
      res.status(429).json(failure(429, 'Too many attempts. Please wait a minute and try again.'));
    },
  });
  for (const router of options.routes(authLimiter)) app.use(router);
  app.use('/api', apiNotFound);
  if (options.storefrontDir) app.use(storefrontHandler(options.storefrontDir));
  app.use(errorEnvelope(platform.logger));
  return app;
}

function measure(metrics: Platform['metrics']) {
  return (req: Request, res: Response, next: NextFunction) => {
    const stop = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      // The matched route pattern keeps label cardinality bounded; unmatched paths share one label.
      const route = req.route?.path ? String(req.route.path) : req.path.startsWith('/media/') ? '/media' : 'other';
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      stop({ method: req.method, route });
    });
    next();
  };
}
