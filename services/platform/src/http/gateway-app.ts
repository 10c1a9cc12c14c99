import compression from 'compression';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { RateLimitedCall, Readiness } from '../modules/module.ts';
import type { Platform } from '../platform.ts';
import { apiNotFound, errorEnvelope } from './error-envelope.ts';
import { jsonBody } from './express-request.ts';
import { apiMethodGuard, inputGuard } from './input-guard.ts';
import { closeWhenStopping, operationsRoutes } from './operations.ts';
import { inSeries } from './layers.ts';
import { rateLimits } from './rate-limits.ts';
import { requestContext, type Authenticate } from './request-context.ts';

export interface GatewayOptions {
  platform: Pick<Platform, 'database' | 'bus' | 'metrics' | 'logger' | 'config' | 'redis' | 'lifecycle'>;
  authenticate: Authenticate;
  /** The services' public routers (in this process) and forwarders (to services running apart). */
  routes: express.RequestHandler[];
  /** Calls limited per client address: logins and password mails, guest creation, history writes. */
  rateLimited: RateLimitedCall[];
  /** The storefront's pages, after the API; none serves only the API. */
  pages?: express.RequestHandler[];
  readiness?: Readiness;
  /** /media: mounted ahead of the page middleware (security headers, compression) it has no use for. */
  media?: express.RequestHandler[];
}

/** The only thing the browser talks to: /api/*, /media/*, operations and the storefront. */
export function createGatewayApp(options: GatewayOptions): express.Express {
  const { platform } = options;
  const app = express();
  app.disable('x-powered-by');
  // The client's address (rate limits) is the connection's own unless TRUST_PROXY names the proxies in
  // front: trusting any private address let a client rotate X-Forwarded-For past every limit.
  app.set('trust proxy', platform.config.TRUST_PROXY);
  app.set('etag', false);

  // Each line one layer (layers.ts): what every call goes through, what every page and API call goes
  // through, what every API call goes through; then the handlers that answer, each asked only for its paths.
  app.use(inSeries('everyCall', closeWhenStopping(platform), measure(platform.metrics)));
  for (const handler of options.media ?? []) app.use(handler);
  const helmetHeaders = helmet({ contentSecurityPolicy: { directives: securityPolicy(platform.config) }, crossOriginEmbedderPolicy: false });
  app.use(inSeries('securityAndCompression', securityHeaders(helmetHeaders), compressionWhenAccepted()));
  app.use(operationsRoutes(platform, options.readiness));

  app.use('/api', inSeries('apiCall', apiMethodGuard, jsonBody(), inputGuard, requestContext(options.authenticate, platform.logger)));
  for (const handler of rateLimits(platform, options.rateLimited)) app.use(handler);
  for (const router of options.routes) app.use(router);
  app.use('/api', apiNotFound);
  for (const handler of options.pages ?? []) app.use(handler);
  app.use(errorEnvelope(platform.logger));
  return app;
}

// What Stripe.js needs (docs.stripe.com/security/guide, "Content Security Policy"): its script, the
// iframes of Elements and 3-D Secure, and its API. Allowed only where Stripe is configured.
const stripeSources = {
  scriptSrc: ['https://js.stripe.com'],
  frameSrc: ['https://js.stripe.com', 'https://hooks.stripe.com'],
  connectSrc: ['https://api.stripe.com'],
};

// What the storefront's ad pixels need (storefront/src/lib/adPixels.ts), each only where its id is
// configured: Meta's fbevents.js and its beacons; gtag.js and Google Analytics' collection (Google's
// Content-Security-Policy guide for GA4); TikTok's pixel; Bigo's events.js.
const pixelSources = {
  FACEBOOK_PIXEL_ID: { scriptSrc: ['https://connect.facebook.net'], imgSrc: ['https://www.facebook.com'], connectSrc: ['https://www.facebook.com'] },
  GOOGLE_ANALYTICS_ID: {
    scriptSrc: ['https://www.googletagmanager.com'],
    imgSrc: ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://www.googletagmanager.com'],
    connectSrc: ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://www.googletagmanager.com'],
  },
  TIKTOK_PIXEL_ID: { scriptSrc: ['https://analytics.tiktok.com'], imgSrc: [], connectSrc: ['https://analytics.tiktok.com'] },
  BIGO_PIXEL_ID: { scriptSrc: ['https://api.imotech.video'], imgSrc: ['https://api.imotech.video'], connectSrc: ['https://api.imotech.video'] },
} as const;

type PixelSetting = keyof typeof pixelSources;

function pixelSourcesFor(config: Pick<Platform['config'], PixelSetting>, directive: 'scriptSrc' | 'imgSrc' | 'connectSrc'): string[] {
  return (Object.keys(pixelSources) as PixelSetting[]).filter((setting) => config[setting]).flatMap((setting) => pixelSources[setting][directive]);
}

function securityPolicy(config: Pick<Platform['config'], 'STRIPE_PUBLISHABLE_KEY' | 'SENTRY_DSN' | 'MEDIA_EDGE_URL' | PixelSetting>) {
  const stripe = Boolean(config.STRIPE_PUBLISHABLE_KEY);
  // The player fetches playlists and segments (hls.js) and subtitles from the media edge when there is one.
  const edge = config.MEDIA_EDGE_URL ? [new URL(config.MEDIA_EDGE_URL).origin] : [];
  return {
    defaultSrc: ["'self'"],
    imgSrc: ["'self'", 'data:', 'blob:', ...pixelSourcesFor(config, 'imgSrc')],
    mediaSrc: ["'self'", 'blob:', ...edge],
    workerSrc: ["'self'", 'blob:'],
    // The browser's Sentry reports go to the DSN's host.
    connectSrc: [
      "'self'",
      ...edge,
      ...(stripe ? stripeSources.connectSrc : []),
      ...(config.SENTRY_DSN ? [new URL(config.SENTRY_DSN).origin] : []),
      ...pixelSourcesFor(config, 'connectSrc'),
    ],
    styleSrc: ["'self'", "'unsafe-inline'"],
    scriptSrc: ["'self'", ...(stripe ? stripeSources.scriptSrc : []), ...pixelSourcesFor(config, 'scriptSrc')],
    // Unset, frames fall back to default-src 'self'; said out loud only when Stripe adds to it.
    ...(stripe && { frameSrc: ["'self'", ...stripeSources.frameSrc] }),
    upgradeInsecureRequests: null,
  };
}

/**
 * helmet's headers, worked out once: with these settings they depend on nothing in the request, and
 * helmet's chain of a dozen middlewares ran on every call (a tenth of a cached read's time).
 */
function securityHeaders(helmetMiddleware: (req: never, res: never, next: (error?: unknown) => void) => void): express.RequestHandler {
  const headers = new Map<string, string | string[] | number>();
  const recorder = {
    setHeader: (name: string, value: string | string[] | number) => void headers.set(name.toLowerCase(), value),
    removeHeader: (name: string) => void headers.delete(name.toLowerCase()),
  };
  let failed: unknown = null;
  helmetMiddleware({ headers: {}, method: 'GET', url: '/' } as never, recorder as never, (error) => (failed = error ?? null));
  if (failed) throw failed;
  const pairs = [...headers];
  return (_req, res, next) => {
    for (const [name, value] of pairs) res.setHeader(name, value);
    next();
  };
}

/**
 * compression, for a caller that takes an encoding. One that sends no Accept-Encoding would get the
 * answer as it is: it gets it without compression's wrapping of the response on every call (a
 * twentieth of a cached read's time), and with the same `Vary: Accept-Encoding`, so a shared cache
 * keeps it apart from a compressed one.
 */
function compressionWhenAccepted(): express.RequestHandler {
  const compress = compression();
  return (req, res, next) => {
    if (req.headers['accept-encoding']) return compress(req, res, next);
    res.vary('Accept-Encoding');
    next();
  };
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
