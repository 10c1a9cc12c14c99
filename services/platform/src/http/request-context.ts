import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { utmFields, type Attribution, type Caller } from '../context.ts';
import type { Logger } from '../logger.ts';
import { activeTraceparent } from '../observability/tracing.ts';

/** Resolves a user token to its user and role, or null. */
export type Authenticate = (token: string | undefined) => Promise<Caller | null>;

// Attribution is kept as far as it makes sense and never fails a request: a value with control
// characters (a NUL cannot even be stored) or of absurd length is dropped, not an error.
const clean = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 512 && !/[\u0000-\u001f\u007f]/.test(value) ? value : null;

/** The utm_* fields of `x-utm`, a URL query (`utm_source=news&utm_campaign=spring`), so any text travels in a header. */
function utmOfHeader(header: string | undefined): Partial<Attribution> {
  if (!header || header.length > 2048) return {};
  const query = new URLSearchParams(header);
  return Object.fromEntries(Object.entries(utmFields).flatMap(([name, key]) => {
    const value = clean(query.get(name));
    return value ? [[key, value]] : [];
  }));
}
const requestIdOf = (value: string | undefined) => (value && /^[\w.:-]{1,100}$/.test(value) ? value : null);

/** On an answer given while the caller's identity could not be checked: they were served as anonymous. */
export const IDENTITY_UNAVAILABLE_HEADER = 'x-identity-unavailable';

/**
 * Builds the request context every service call and event receives: a request id, the user of
 * the token, the attribution (headers first, then fbclid/ttclid from query or JSON body; the utm_*
 * fields from `x-utm`), and the trace context of the request's span (OpenTelemetry's HTTP
 * instrumentation, which every process loads first), child of the caller's when it sent one.
 */

export function requestContext(authenticate: Authenticate, logger: Logger) {
  const identify = async (req: Request, res: Response, token: string) => {
    try {
      const caller = await authenticate(token);
      if (caller) {
        req.context.userId = caller.userId;
        if (caller.role !== 'viewer') req.context.role = caller.role;
      }
    } catch (error) {
      // Who is calling cannot be told (the user service is down): public reads go on as anonymous,
      // the answer says so, and calls that need a user answer 503 (`requireUser`).
      logger.warn({ err: error, requestId: req.context.requestId }, 'caller treated as anonymous: identity unavailable');
      req.context.identityUnavailable = true;
      res.setHeader(IDENTITY_UNAVAILABLE_HEADER, '1');
    }
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const requestId = requestIdOf(req.get('x-request-id')) ?? randomUUID();
    res.setHeader('x-request-id', requestId);
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    // Express parses the query string again on every read of `req.query`.
    const query = req.query;
    const attribution: Attribution = {
      referrerToken: clean(req.get('x-referrer-token')),
      fbclid: clean(req.get('x-fbclid')) ?? clean(query.fbclid) ?? clean(body.fbclid),
      ttclid: clean(req.get('x-ttclid')) ?? clean(query.ttclid) ?? clean(body.ttclid),
      ...utmOfHeader(req.get('x-utm')),
    };
    const traceparent = activeTraceparent();
    req.context = { requestId, userId: null, attribution, ...(traceparent && { traceparent }) };
    // No token: an anonymous caller, and no one to ask.
    const token = req.get('x-user-token');
    if (!token) return next();
    return identify(req, res, token).then(() => next());
  };
}
