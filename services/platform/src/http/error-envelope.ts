import type { NextFunction, Request, Response } from 'express';
import { failure } from '../envelope.ts';
import { AppError, TooManyRequests } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { reportCrash } from '../observability/sentry.ts';

/** Unknown /api paths: an HTTP 404 in the envelope, never the storefront's HTML. */
export function apiNotFound(req: Request, res: Response) {
  res.status(404).json(failure(404, `No such call: ${req.method} ${req.originalUrl.split("?")[0]}`));
}

// body-parser's errors carry the HTTP status the client earned.
const httpErrors: Record<string, { status: number; message: string }> = {
  'entity.parse.failed': { status: 400, message: 'The request body is not valid JSON' },
  'entity.too.large': { status: 413, message: 'The request body is too large' },
  'encoding.unsupported': { status: 415, message: 'Unsupported content encoding' },
  'charset.unsupported': { status: 415, message: 'Unsupported charset' },
};

/**
 * The one place errors become envelopes. Domain errors are handled outcomes (HTTP 200 with their
 * code, but 429 for TooManyRequests); anything else is a crash: logged with the request id (and reported to Sentry when it
 * runs), answered without internals.
 */
export function errorEnvelope(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A throttled call answers as the gateway's rate limits do (HTTP 429), so clients and proxies wait as told.
    if (error instanceof TooManyRequests) {
      res.status(429).setHeader('retry-after', String(error.retryAfterSeconds)).json(failure(429, error.message, error.data));
      return;
    }
    if (error instanceof AppError) {
      res.status(200).json(failure(error.code, error.message, error.data));
      return;
    }
    const known = httpErrors[(error as { type?: string })?.type ?? ''];
    if (known) {
      // A body too large is not read to its end: the connection closes instead.
      if (known.status === 413) res.setHeader('connection', 'close');
      res.status(known.status).json(failure(known.status, known.message));
      return;
    }
    // Errors the HTTP layer marks as the client's (a corrupt compressed body, a malformed address).
    const { status, expose } = (error ?? {}) as { status?: number; expose?: boolean };
    if (expose && typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json(failure(status, status === 400 ? 'The request could not be read' : 'The request was refused'));
      return;
    }
    const requestId = req.context?.requestId ?? res.getHeader('x-request-id');
    logger.error({ err: error, requestId, method: req.method, path: req.path }, 'request crashed');
    reportCrash(error, { method: req.method, url: `${req.protocol}://${req.get('host')}${req.originalUrl.split('?')[0]}`, requestId: String(requestId) });
    res.status(500).json(failure(500, `Something went wrong on our side (request ${requestId})`));
  };
}
