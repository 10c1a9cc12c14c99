import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ok } from '../envelope.ts';

/**
 * Reads the same for everyone (the homepage, categories, search, shared rankings): a browser keeps
 * one 10 s, a CDN or proxy 60 s. The services' own caches already let these lag a few seconds.
 */
export const PUBLIC_READ = 'public, max-age=10, s-maxage=60';
/** Reads that depend on the viewer (locks, favorites, resume points, their history): never in a shared cache, revalidated by the browser every time. */
export const PRIVATE_READ = 'private, max-age=0';

/** A strong validator of the exact bytes of an answer. */
export const entityTagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;

/**
 * Whether `If-None-Match` names `tag`, by weak comparison (RFC 9110, 13.1.2: what a GET uses):
 * `W/` is ignored on both sides, since a CDN or a compressing proxy may weaken a tag it passes on.
 */
export function noneMatchHolds(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (value: string) => value.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => opaque(candidate) === opaque(tag));
}

// A service that keeps an answer (the homepage, 5 s) hands out the same object to every caller
// meanwhile: its bytes and tag are made once, not per request (the hottest read's largest cost).
const bytesOf = new WeakMap<object, { body: string; tag: string }>();

function serialized(data: unknown): { body: string; tag: string } {
  const kept = typeof data === 'object' && data !== null ? bytesOf.get(data) : undefined;
  if (kept) return kept;
  const body = JSON.stringify(ok(data));
  const made = { body, tag: entityTagOf(body) };
  if (typeof data === 'object' && data !== null) bytesOf.set(data, made);
  return made;
}

/**
 * Answers `data` in the envelope with an ETag of its bytes and `cacheControl`, or 304 with no
 * body when the caller already holds those bytes: a reload or a CDN's revalidation costs the
 * query but not the transfer, nor the client's parsing.
 */
export function answerCacheable(req: Request, res: Response, data: unknown, cacheControl: string): void {
  const { body, tag } = serialized(data);
  res.setHeader('ETag', tag);
  res.setHeader('Cache-Control', cacheControl);
  if ((req.method === 'GET' || req.method === 'HEAD') && noneMatchHolds(req.get('if-none-match'), tag)) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(body);
}
