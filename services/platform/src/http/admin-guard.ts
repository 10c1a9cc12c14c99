import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { Forbidden } from '../errors.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Answers 403 unless the request carries `Authorization: Bearer <ADMIN_TOKEN>`. With no
 * ADMIN_TOKEN configured the admin API is off: every call answers 403 saying so.
 */
export function requireAdmin(adminToken: string | undefined) {
  const expected = adminToken ? digest(adminToken) : null;
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!expected) throw new Forbidden('The admin API is off: set ADMIN_TOKEN to turn it on');
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    // Comparing digests keeps the comparison constant-time whatever the token's length.
    if (!given || !timingSafeEqual(digest(given), expected)) throw new Forbidden('Wrong or missing admin token');
    next();
  };
}
