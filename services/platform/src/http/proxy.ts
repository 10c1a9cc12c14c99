import http from 'node:http';
import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { failure } from '../envelope.ts';
import { ServiceUnavailable } from '../errors.ts';
import { downstreamFailed, type CircuitBreaker } from './circuit-breaker.ts';
import type { Logger } from '../logger.ts';
import { CONTEXT_HEADER, encodeContext, INTERNAL_TOKEN_HEADER } from './internal-http.ts';

// Headers a service's answer may carry back to the browser.
const passedBack = [
  'content-type', 'content-length', 'content-range', 'accept-ranges', 'cache-control', 'x-user-token', 'location', 'last-modified', 'etag',
  // /media is mounted ahead of helmet: a service's own security headers are all its answers carry.
  'x-content-type-options', 'cross-origin-resource-policy', 'content-security-policy', 'allow', 'retry-after',
  // The sign-in's browser binding (a cookie on /api/user/oauth, services/user/src/social-sign-in.ts).
  'set-cookie',
  // tus's answers (resumable uploads, /api/admin/uploads) and the episode a finished one made.
  'tus-resumable', 'tus-version', 'tus-extension', 'tus-max-size', 'upload-offset', 'upload-length', 'upload-expires', 'upload-metadata', 'episode-id',
];
// Headers of the browser's request a service reads: idempotency keys of pay calls, the signature of
// a provider's webhook, the viewer's time zone and language, the sign-in's browser binding, the
// validator of a catalog read the browser (or a CDN) already holds.
const passedOn = [
  'content-type', 'range', 'if-range', 'if-none-match', 'x-user-token', 'accept', 'authorization', 'user-agent', 'x-forwarded-for',
  'idempotency-key', 'stripe-signature', 'x-time-zone', 'accept-language', 'cookie',
  // tus's request headers (resumable uploads).
  'tus-resumable', 'upload-length', 'upload-offset', 'upload-metadata', 'upload-defer-length',
];

/**
 * Forwards a request to the service that owns it (services running apart), with the request
 * context the gateway built, the internal token and the trace context of a client span, which
 * OpenTelemetry's HTTP instrumentation opens and writes (the browser's own `traceparent` is not
 * passed on). A JSON body the gateway already read is sent byte for byte; any other body (an
 * upload) streams through untouched.
 */
export function forwardTo(baseUrl: string, internalToken: string, logger: Logger, breaker?: CircuitBreaker) {
  const target = new URL(baseUrl);
  const refuse = (res: Response) => {
    const error = breaker?.unavailable() ?? new ServiceUnavailable();
    res.status(503).setHeader('retry-after', '5').json(failure(503, error.message));
  };
  return (req: Request, res: Response) => {
    // An open circuit answers at once: no request waits on a service known to be down.
    if (breaker && !breaker.allow()) return refuse(res);
    const headers: http.OutgoingHttpHeaders = { [INTERNAL_TOKEN_HEADER]: internalToken };
    for (const name of passedOn) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
    if (req.context) headers[CONTEXT_HEADER] = encodeContext(req.context);
    // A body the gateway already read is sent as it arrived (a signed webhook stays verifiable).
    const body = req.rawBody ?? null;
    if (body) headers['content-length'] = body.length;
    else if (req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
    else if (req.headers['transfer-encoding']) headers['transfer-encoding'] = req.headers['transfer-encoding'];

    const upstream = http.request(
      { protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: req.originalUrl, headers },
      (answer) => {
        if (downstreamFailed(answer.statusCode ?? 502, answer.headers['content-type'])) breaker?.failed();
        else breaker?.succeeded();
        res.status(answer.statusCode ?? 502);
        for (const name of passedBack) if (answer.headers[name] !== undefined) res.setHeader(name, answer.headers[name]!);
        answer.pipe(res);
      },
    );
    upstream.setTimeout(100_000, () => upstream.destroy(new Error('service timed out')));
    upstream.on('error', (error) => {
      // The path only: a query may hold a provider's code and state, or a token.
      logger.error({ err: error, target: baseUrl, path: req.originalUrl.split('?')[0], requestId: req.context?.requestId }, 'service unreachable');
      if (res.headersSent) return void res.destroy();
      breaker?.failed();
      refuse(res);
    });
    if (body) upstream.end(body);
    else (req as Readable).pipe(upstream);
  };
}
