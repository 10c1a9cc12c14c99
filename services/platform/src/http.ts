import type { RequestContext } from './context.ts';

declare global {
  // Express's own extension point: every request carries the context the gateway built for it.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      context: RequestContext;
    }
  }
}

export {};
