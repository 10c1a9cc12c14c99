import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { RequestContext, Role } from '../context.ts';
import { Forbidden, Unauthorized } from '../errors.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();
const rank: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** Who makes an admin call: "token" for ADMIN_TOKEN (automation), else the member's user id. */
export interface AdminCaller {
  actor: string;
  role: Role;
}

/**
 * Lets a call through for `Authorization: Bearer <ADMIN_TOKEN>` (acting as `admin`) or for a member
 * session whose role reaches `least`. Each service checks this itself: the role comes in the request
 * context the gateway built from the session, which only holders of INTERNAL_TOKEN can send, so no
 * path around the gateway skips it. Answers 401 without a member, 403 for a role too low.
 */
export function requireRole(adminToken: string | undefined, least: Exclude<Role, 'viewer'>) {
  const expected = adminToken ? digest(adminToken) : null;
  return (req: Request, _res: Response, next: NextFunction) => {
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (given) {
      // Comparing digests keeps the comparison constant-time whatever the token's length.
      if (!expected) throw new Forbidden('The admin token is off: set ADMIN_TOKEN to turn it on');
      if (!timingSafeEqual(digest(given), expected)) throw new Forbidden('Wrong admin token');
      req.admin = { actor: 'token', role: 'admin' };
      return next();
    }
    // A service app always has a context (the gateway's or the system's); a bare router may not.
    const { userId, role = 'viewer' } = req.context ?? {};
    if (!userId) throw new Unauthorized('Please log in as an operator, or send the admin token');
    if (rank[role] < rank[least]) throw new Forbidden(least === 'admin' ? 'Only an admin may do this' : 'Only operators may do this');
    req.admin = { actor: userId, role };
    next();
  };
}

/** The admin call `requireRole` let through, for the audit log: every admin route runs behind it. */
export function adminCallOf(req: Request): { context: RequestContext; caller: AdminCaller } {
  if (!req.admin) throw new Forbidden('Admin calls only');
  return { context: req.context, caller: req.admin };
}
