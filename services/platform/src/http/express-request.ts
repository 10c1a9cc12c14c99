import express from 'express';
import type { RequestContext } from '../context.ts';
import type { AdminCaller } from './admin-guard.ts';

declare global {
  // Express's own extension point: every request carries the context the gateway built for it.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      context: RequestContext;
      /** The JSON body's bytes as they arrived: what a signed webhook is verified on, and what is forwarded. */
      rawBody?: Buffer;
      /** Set by `requireRole` on an admin call: who makes it, for the audit log. */
      admin?: AdminCaller;
    }
  }
}

const JSON_LIMIT_BYTES = 64 * 1024;

/**
 * The one JSON body parser of the gateway and the services: any JSON value parses (a body of the
 * wrong shape is a 422 from the route's schema, not a 400), and the raw bytes are kept beside it.
 * A declared length over the limit is refused before a byte is read (body-parser would read the
 * whole body first, however large, to answer its 413).
 */
export function jsonBody(): express.RequestHandler {
  const parse = express.json({
    limit: JSON_LIMIT_BYTES,
    strict: false,
    verify: (req, _res, bytes) => {
      (req as express.Request).rawBody = bytes;
    },
  });
  return (req, res, next) => {
    // A GET or HEAD has no body to read: whatever one carries is ignored, not parsed into an error.
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    const declared = Number(req.headers['content-length']);
    if (req.is('application/json') && declared > JSON_LIMIT_BYTES) return next(Object.assign(new Error('request entity too large'), { type: 'entity.too.large' }));
    parse(req, res, next);
  };
}
