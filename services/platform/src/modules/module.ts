import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Router } from 'express';
import type { Platform } from '../platform.ts';
import type { ServiceClient } from '../http/internal-http.ts';
import type { Authenticate } from '../http/request-context.ts';

/** A limit of config's `RATE_LIMIT_<NAME>_PER_MINUTE`: calls naming the same limit share one count per client address. */
export type RateLimitName = 'auth' | 'guest' | 'history';

/** A call the gateway limits per client address (Redis-shared with REDIS_URL), wherever its module runs. */
export interface RateLimitedCall {
  method: 'GET' | 'POST';
  /** The exact path. */
  path: string;
  /** Which limit counts it; `auth` (password guesses and mails) unless said. */
  limit?: RateLimitName;
  /** Counts only callers without a valid session: of `GET /api/user`, only the calls that make a guest. */
  onlyAnonymous?: boolean;
}

/**
 * A call every gateway answers itself on the bare HTTP server, in front of its Express stack, and
 * whichever process runs its module: one that must answer at once, whatever its input, without
 * waiting for storage or another service (the statics.png pixel).
 */
export interface Edge {
  /** The exact path it answers, for GET and HEAD; other methods go on to the API (which refuses them). */
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Writes out what it holds; called after the server stopped accepting requests. */
  stop(): Promise<void>;
}

/** What a module's edge receives in the gateway: the platform, and who a user token belongs to. */
export interface EdgeContext {
  platform: Platform;
  authenticate: Authenticate;
}

/** Why a part cannot serve yet (still starting), or null. */
export type Readiness = () => Promise<string | null>;

/** Work that runs beside serving (consumers' side jobs, schedules, seeding), and how to stop it. */
export interface Background {
  stop(): Promise<void> | void;
}

/**
 * What a module's init receives: the platform, and the clients of the modules it needs. A client is
 * lazy: in one process it reaches the other module's instance on its first call (so two modules may
 * ask each other, user ↔ catalog, whatever order they were built in); apart, it calls over HTTP.
 */
export interface ModuleContext {
  platform: Platform;
  client<C>(name: string): C;
  /** Whether a module runs in this process (some work needs another module's local side). */
  runsHere(name: string): boolean;
}

/** How a module is reached from a process it does not run in. */
export interface RemoteContext {
  platform: Platform;
  /** The module's internal HTTP endpoint (`<NAME>_SERVICE_URL`, `INTERNAL_TOKEN`); throws a ConfigError naming what is missing. */
  http(): ServiceClient;
}

/** One service, built in this process. */
export interface ModuleInstance<C = unknown> {
  /** What the module offers the modules that need it, in this process. */
  client?: C;
  /** Public routes: `/api/...` calls of docs/api.md. */
  routes?: Router[];
  /** `/internal/<name>/...`: what other processes call through its remote client. */
  internalRoutes?: Router[];
  /** `/media` and other hot paths mounted ahead of the page middleware (security headers, compression). */
  media?: RequestHandler;
  readiness?: Readiness;
  /** Started once the platform delivers events and jobs. */
  background?: () => Background;
}

/**
 * One entry of the module registry (Grafana Loki's modules): everything a deployment needs to know
 * about a service to run it in a process, route to it, or reach it from elsewhere.
 */
export interface ServiceModule<C = unknown> {
  name: string;
  /** Versioned SQL of the schema it owns, applied before init wherever the module runs. */
  migrations?: string;
  /** Path prefixes of its public calls; a gateway forwards them when the module runs apart. */
  publicPrefixes?: string[];
  /** Calls the gateway rate limits per client address. */
  rateLimited?: RateLimitedCall[];
  /** Names of the modules whose clients it uses. */
  needs?: string[];
  /** Names of the job queues it works, listed to operators by GET /api/admin/jobs. */
  queues?: string[];
  /** Its call answered at every gateway's edge (`Edge`), built where a gateway runs. */
  edge?(context: EdgeContext): Edge;
  init(context: ModuleContext): Promise<ModuleInstance<C>> | ModuleInstance<C>;
  /** Its client when it runs in another process; without one, nothing reaches it from outside. */
  remoteClient?(context: RemoteContext): C;
  /**
   * What a gateway does before forwarding to it when it runs apart, with its remote client: the user
   * module's forgets a session the gateway remembered when that session logs out.
   */
  gatewayRoutes?(client: C): Router;
}

/** Lets a module declare itself with its client type checked. */
export const defineModule = <C>(module: ServiceModule<C>): ServiceModule<C> => module;
