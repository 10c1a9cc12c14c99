import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Attribution } from '@cliffhanger/platform';

/** Resolves a user token to its user id, or null. */
export type Authenticate = (token: string | undefined) => Promise<string | null>;

const clean = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : null;

/**
 * Builds the request context every service call and event receives: a request id, the user of
 * the token, and the attribution (headers first, then fbclid/ttclid from query or JSON body).
 */
export function requestContext(authenticate: Authenticate) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const requestId = clean(req.get('x-request-id')) ?? randomUUID();
    res.setHeader('x-request-id', requestId);
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    const attribution: Attribution = {
      referrerToken: clean(req.get('x-referrer-token')),
      fbclid: clean(req.get('x-fbclid')) ?? clean(req.query.fbclid) ?? clean(body.fbclid),
      ttclid: clean(req.get('x-ttclid')) ?? clean(req.query.ttclid) ?? clean(body.ttclid),
    };
    req.context = { requestId, userId: await authenticate(req.get('x-user-token')), attribution };
    next();
  };
}
