import type { NextFunction, Request, Response } from 'express';
import { failure } from '../envelope.ts';
import { Invalid } from '../errors.ts';

const MAX_DEPTH = 32;

/** The first string (key or value) of `value` that holds a NUL, as a field path; or a too-deep nesting. */
function findProblem(value: unknown, path: string, depth: number): { field: string; message: string } | null {
  if (depth > MAX_DEPTH) return { field: path || 'body', message: 'The request is nested too deeply' };
  if (typeof value === 'string') return value.includes('\u0000') ? { field: path || 'body', message: 'Must not contain NUL characters' } : null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem = findProblem(item, `${path}.${i}`.replace(/^\./, ''), depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return { field: 'body', message: 'Must not contain NUL characters' };
      const problem = findProblem(item, field, depth + 1);
      if (problem) return problem;
    }
  }
  return null;
}

/**
 * One rule for every field of every call, at the edge: a NUL (which PostgreSQL cannot store) in the
 * path, the query or the body, or a body nested absurdly deep, is a 422 naming the field, before any
 * route or service sees it. (The pixel, which answers whatever it is sent, is answered in front of
 * this: a module's `Edge`.)
 */
export function inputGuard(req: Request, _res: Response, next: NextFunction) {
  let path: string;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    next(new Invalid({ path: 'The address is not valid' }));
    return;
  }
  if (path.includes('\u0000')) {
    next(new Invalid({ path: 'Must not contain NUL characters' }));
    return;
  }
  const problem = findProblem(req.query, '', 0) ?? findProblem(req.body, '', 0);
  next(problem ? new Invalid({ [problem.field]: problem.message }) : undefined);
}

// tus, the resumable upload protocol, asks an upload's offset with HEAD (services/catalog's uploads).
const TUS_UPLOADS = /^\/admin\/uploads(\/|$)/;

/**
 * HEAD and OPTIONS on /api: no call answers them (a HEAD of GET /api/user would make a guest), so
 * they get the envelope's 405 instead of Express's plain-text defaults. Resumable uploads are the
 * one exception.
 */
export function apiMethodGuard(req: Request, res: Response, next: NextFunction) {
  if ((req.method !== 'HEAD' && req.method !== 'OPTIONS') || TUS_UPLOADS.test(req.path)) return next();
  res.setHeader('allow', 'GET, POST, PUT, DELETE');
  res.status(405).json(failure(405, `Method not allowed: ${req.method}`));
}
