import type { NextFunction, Request, RequestHandler, Response } from 'express';

// Express's router pays for every layer a request walks past (matching its path, trimming and
// restoring a mount path, its own `next`), and every call walks them all until one answers: with
// each module's routes, limits and preludes a layer of their own, a cached read spent more in the
// router than in its handler. The two helpers below keep that walk short, with the router's own
// semantics where it matters (a thrown error or a rejected promise reaches the error handler).

/**
 * Handlers every call of a kind goes through, one after another, as one layer named `name` (what a
 * trace calls its span): the first that answers, or passes an error on, ends the series; the last
 * one's `next()` goes on past it.
 */
export function inSeries(name: string, ...handlers: RequestHandler[]): RequestHandler {
  const series = (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    const step: NextFunction = (error?: unknown) => {
      if (error !== undefined && error !== null) return next(error);
      const handler = handlers[index++];
      if (!handler) return next();
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.catch(next);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
  return Object.defineProperty(series, 'name', { value: name });
}

/**
 * Routers asked only for paths under `prefixes` (the path itself or below it, letters in either
 * case, as Express matches a route): a call walks the routes that may concern it, not all of them.
 * No prefixes: asked for everything. The returned layer's name keeps it out of traces
 * (observability/instrument.ts ignores it): a route's span stays the request's child.
 */
export function onlyUnder(prefixes: readonly string[], routers: RequestHandler[]): RequestHandler[] {
  if (prefixes.length === 0 || routers.length === 0) return routers;
  const lowered = prefixes.map((prefix) => prefix.toLowerCase());
  const under = (path: string) => {
    const lower = path.toLowerCase();
    return lowered.some((prefix) => prefix === '/' || (lower.startsWith(prefix) && (lower.length === prefix.length || lower[prefix.length] === '/')));
  };
  const inner = routers.length === 1 ? routers[0]! : inSeries('routes', ...routers);
  const moduleRoutes: RequestHandler = (req, res, next) => (under(req.path) ? inner(req, res, next) : next());
  return [moduleRoutes];
}

/** The literal start of an Express route path, up to its first parameter or pattern: what `onlyUnder` can gate on. */
export function literalHead(routePath: string): string {
  const special = routePath.search(/[:*{(?+]/);
  if (special === -1) return routePath;
  return routePath.slice(0, routePath.lastIndexOf('/', special - 1)) || '/';
}
