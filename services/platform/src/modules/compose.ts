import type { RequestListener } from 'node:http';
import express, { Router, type RequestHandler } from 'express';
import { ConfigError, type Config } from '../config.ts';
import { migrate } from '../db/index.ts';
import { eventsAdminRoutes } from '../http/events-admin.ts';
import { operationsAdminRoutes, within, type ServiceHealth } from '../http/operations-admin.ts';
import { createGatewayApp } from '../http/gateway-app.ts';
import { createBreakers, type CircuitBreaker } from '../http/circuit-breaker.ts';
import { createServiceClient } from '../http/internal-http.ts';
import { onlyUnder } from '../http/layers.ts';
import { forwardTo } from '../http/proxy.ts';
import type { Authenticate } from '../http/request-context.ts';
import { createServiceApp } from '../http/service-app.ts';
import type { Platform } from '../platform.ts';
import type { Background, Edge, ModuleInstance, Readiness, ServiceModule } from './module.ts';

/** The target that is not a service: the public face (storefront, `/api` routing, rate limits). */
export const GATEWAY = 'gateway';

export interface Registry {
  modules: ServiceModule<any>[];
  /** The module whose client answers `authenticate(token)`: who the caller of a public request is. */
  identity: string;
}

/** What a process runs: its HTTP app, and the work beside serving that starts with the platform. */
export interface Composition {
  app: express.Express;
  /** What the HTTP server serves: the modules' edge calls, answered in front of `app`, then `app`. */
  listener: RequestListener;
  /** The modules built in this process, by name. */
  instances: Map<string, ModuleInstance>;
  /** The edge calls a gateway answers itself (none in a service process). */
  edges: Edge[];
  /** Starts the modules' background work; its stop also writes out what the edges hold. */
  startBackground(): Background;
}

/** A module's client, wherever the module runs: what the storefront's pages ask (the catalog, for series pages). */
export type ClientOf = <C>(name: string) => C;

export interface ComposeOptions {
  /** The storefront's pages, served by a gateway after the API; a function when they ask modules. */
  pages?: RequestHandler[] | ((clientOf: ClientOf) => RequestHandler[]);
}

/** Every name `TARGET` accepts, derived from the registry. */
export const targetsOf = (registry: Registry) => ['all', GATEWAY, ...registry.modules.map((module) => module.name)];

/** The names a TARGET value asks for (`all`, or a comma-separated list); an unknown name stops the start. */
export function parseTarget(registry: Registry, target: string): { gateway: boolean; modules: ServiceModule<any>[] } {
  const names = target.split(',').map((name) => name.trim()).filter(Boolean);
  const known = targetsOf(registry);
  const unknown = names.find((name) => !known.includes(name));
  if (unknown !== undefined || names.length === 0)
    throw new ConfigError(`config: TARGET: '${unknown ?? target}' is not one of ${known.join(', ')}`);
  if (names.includes('all')) return { gateway: true, modules: registry.modules };
  return { gateway: names.includes(GATEWAY), modules: registry.modules.filter((module) => names.includes(module.name)) };
}

const envNameOf = (module: string) => `${module.toUpperCase()}_SERVICE_URL`;

function required(config: Config, name: 'INTERNAL_TOKEN', why: string): string {
  if (!config[name]) throw new ConfigError(`config: ${name}: required when ${why}`);
  return config[name];
}

/**
 * Builds the process `config.TARGET` names (docs/architecture.md "One codebase, two deployments"): the modules
 * it runs, each migrated and built on the shared platform, and an HTTP face: a gateway (public
 * routes, forwarding whatever runs elsewhere) or a service app that only the gateway and other
 * services may call.
 */
export async function composeTarget(platform: Platform, registry: Registry, options: ComposeOptions = {}): Promise<Composition> {
  const { config } = platform;
  const target = parseTarget(registry, config.TARGET);
  const byName = new Map(registry.modules.map((module) => [module.name, module]));
  const local = new Set(target.modules.map((module) => module.name));
  const instances = new Map<string, ModuleInstance>();
  const remotes = new Map<string, unknown>();
  // One circuit per module running elsewhere, shared by the calls forwarded to it and its client's.
  const breakerOf = createBreakers(platform.metrics);

  const urlOf = (name: string, why: string) => {
    const url = config.serviceUrls[name];
    if (!url) throw new ConfigError(`config: ${envNameOf(name)}: required when ${why}`);
    return url;
  };
  const remoteClientOf = (name: string, why: string) => {
    const module = byName.get(name);
    if (!module) throw new Error(`module registry: no module '${name}' (${why})`);
    if (!remotes.has(name)) {
      if (!module.remoteClient) throw new ConfigError(`config: TARGET: ${why}, and '${name}' cannot be reached from another process`);
      remotes.set(name, module.remoteClient({ platform, http: () => createServiceClient(urlOf(name, why), required(config, 'INTERNAL_TOKEN', why), { breaker: breakerOf(name) }) }));
    }
    return remotes.get(name);
  };
  // In this process a client is looked up on each call, so modules that need each other may be built
  // in any order; a module running elsewhere gets its HTTP client, checked now so a missing URL stops the start.
  const clientFor = (from: string) => <C>(name: string): C => {
    if (!byName.get(from)?.needs?.includes(name)) throw new Error(`module registry: '${from}' asks for '${name}' without declaring it in needs`);
    if (!local.has(name)) return remoteClientOf(name, `TARGET=${config.TARGET} runs ${from}, which needs ${name}`) as C;
    return lazyClient(() => {
      const client = instances.get(name)?.client;
      if (!client) throw new Error(`module registry: '${name}' offers no client`);
      return client as object;
    }) as C;
  };

  for (const module of target.modules) if (module.migrations) await migrate(platform.database, module.name, module.migrations);
  for (const module of target.modules) instances.set(module.name, await module.init({ platform, client: clientFor(module.name), runsHere: (name) => local.has(name) }));

  const built = [...instances.values()];
  const readiness: Readiness = async () => {
    for (const instance of built) {
      const reason = await instance.readiness?.();
      if (reason) return reason;
    }
    return null;
  };
  const gateway = target.gateway ? gatewayApp(platform, registry, { local, instances, options, remoteClientOf, urlOf, breakerOf, readiness }) : null;
  const app = gateway
    ? gateway.app
    : createServiceApp(
        platform,
        required(config, 'INTERNAL_TOKEN', `TARGET=${config.TARGET} runs apart from the gateway`),
        [...built.flatMap((instance) => (instance.media ? [Router().use(instance.media)] : [])), ...built.flatMap((instance) => [...(instance.routes ?? []), ...(instance.internalRoutes ?? [])])],
        readiness,
      );
  const edges = gateway?.edges ?? [];

  return {
    app,
    listener: edgeListener(edges, app),
    instances,
    edges,
    startBackground() {
      const running = built.flatMap((instance) => (instance.background ? [instance.background()] : []));
      return { stop: async () => void (await Promise.all([...running, ...edges].map((work) => work.stop()))) };
    },
  };
}

/** Answers the edge calls (GET and HEAD of their exact path) before Express parses anything. */
function edgeListener(edges: Edge[], app: express.Express): RequestListener {
  if (edges.length === 0) return app;
  const byPath = new Map(edges.map((edge) => [edge.path, edge]));
  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const edge = req.method === 'GET' || req.method === 'HEAD' ? byPath.get(query === -1 ? url : url.slice(0, query)) : undefined;
    if (edge) edge.handle(req, res);
    else app(req, res);
  };
}

interface GatewayParts {
  local: Set<string>;
  instances: Map<string, ModuleInstance>;
  options: ComposeOptions;
  remoteClientOf(name: string, why: string): unknown;
  urlOf(name: string, why: string): string;
  breakerOf(name: string): CircuitBreaker;
  readiness: Readiness;
}

/**
 * The public face: local modules' routes first (each answers only its own calls), then every other
 * module's prefixes forwarded to it, longest prefix first: `/api/video/unlock` reaches the unlock
 * service although the catalog forwards `/api/video`.
 */
function gatewayApp(platform: Platform, registry: Registry, parts: GatewayParts) {
  const { config, logger } = platform;
  // The bus's dead letters and the jobs live where every process reaches them: the gateway answers for them.
  const routes: RequestHandler[] = onlyUnder(
    ['/api/admin'],
    [
      eventsAdminRoutes(platform),
      operationsAdminRoutes(platform, { queues: registry.modules.flatMap((module) => module.queues ?? []), services: () => servicesHealth(platform, registry, parts) }),
    ],
  );
  const media: RequestHandler[] = [];
  const forwarded: { prefix: string; forward: RequestHandler }[] = [];
  for (const module of registry.modules) {
    const instance = parts.instances.get(module.name);
    if (instance) {
      routes.push(...onlyUnder(module.publicPrefixes ?? [], instance.routes ?? []));
      // Its paths apart from the API's (/media): a page or an API call does not walk its routes.
      if (instance.media) media.push(...onlyUnder((module.publicPrefixes ?? []).filter((prefix) => !prefix.startsWith('/api')), [instance.media]));
      continue;
    }
    const prefixes = module.publicPrefixes ?? [];
    if (prefixes.length === 0) continue;
    const why = `TARGET=${config.TARGET} routes ${prefixes.join(' ')} to ${module.name}`;
    const forward = forwardTo(parts.urlOf(module.name, why), required(config, 'INTERNAL_TOKEN', why), logger, parts.breakerOf(module.name));
    if (module.gatewayRoutes) routes.push(module.gatewayRoutes(parts.remoteClientOf(module.name, why)));
    for (const prefix of prefixes) forwarded.push({ prefix, forward });
  }
  forwarded.sort((a, b) => b.prefix.length - a.prefix.length);
  for (const { prefix, forward } of forwarded) (prefix.startsWith('/api') ? routes : media).push(Router().use(prefix, forward) as Router);
  const identityWhy = `TARGET=${config.TARGET} serves the public API, which asks ${registry.identity} who is calling`;
  const identity = (parts.local.has(registry.identity)
    ? lazyClient(() => parts.instances.get(registry.identity)!.client as object)
    : parts.remoteClientOf(registry.identity, identityWhy)) as { authenticate: Authenticate };
  const authenticate: Authenticate = (token) => identity.authenticate(token);
  // Edges run in every gateway, wherever their module runs: they answer without reaching it.
  const edges = registry.modules.flatMap((module) => (module.edge ? [module.edge({ platform, authenticate })] : []));
  const pagesClientOf: ClientOf = <C>(name: string) =>
    (parts.local.has(name)
      ? lazyClient(() => parts.instances.get(name)!.client as object)
      : parts.remoteClientOf(name, `TARGET=${config.TARGET} serves the storefront's pages, which ask ${name}`)) as C;
  const { pages } = parts.options;
  const app = createGatewayApp({
    platform,
    authenticate,
    routes,
    rateLimited: registry.modules.flatMap((module) => module.rateLimited ?? []),
    pages: typeof pages === 'function' ? pages(pagesClientOf) : pages,
    readiness: parts.readiness,
    media,
  });
  return { app, edges };
}

/** Each module's state: one here by its own readiness, one apart by its /readyz, beside this gateway's circuit to it. */
function servicesHealth(platform: Platform, registry: Registry, parts: GatewayParts): Promise<ServiceHealth[]> {
  return Promise.all(
    registry.modules.map(async (module): Promise<ServiceHealth> => {
      const instance = parts.instances.get(module.name);
      if (instance) return { name: module.name, runs: 'here', state: await within(async () => ((await instance.readiness?.()) ? 'starting' : 'up')), circuit: null };
      const url = platform.config.serviceUrls[module.name];
      if (!url) return { name: module.name, runs: 'apart', state: 'unknown', circuit: null };
      const state = await within(async () => ((await fetch(new URL('/readyz', url), { signal: AbortSignal.timeout(2_000) })).ok ? 'up' : 'down'));
      return { name: module.name, runs: 'apart', state, circuit: parts.breakerOf(module.name).state };
    }),
  );
}

/**
 * A client that finds its target on every call: how two modules in one process that need each
 * other are wired without an order between them.
 */
export function lazyClient<C extends object>(resolve: () => C): C {
  return new Proxy({} as C, {
    get(_target, property) {
      const value = resolve()[property as keyof C];
      return typeof value === 'function' ? value.bind(resolve()) : value;
    },
  });
}
