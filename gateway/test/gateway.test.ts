import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineModule } from '@cliffhanger/platform';
import { realRedisUrl, startSite, tempDir, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';
import { storefrontHandler } from '../src/storefront/index.ts';

type TestGateway = Site;

/** A module whose one call crashes the way a broken dependency would, with internals in the error. */
const crashing = defineModule<never>({
  name: 'crashing',
  publicPrefixes: ['/api/crash'],
  init: () => ({
    routes: [
      Router().get('/api/crash', () => {
        throw new Error('database on fire: secret internals');
      }),
    ],
  }),
});

const startTestGateway = (env: Record<string, string> = {}, pages?: ReturnType<typeof storefrontHandler>) =>
  startSite({ modules: [...registry.modules, crashing], env: { DEMO: '0', ...env }, pages });

describe('the API envelope over HTTP', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.close());

  it('answers malformed JSON with HTTP 400 in the envelope', async () => {
    const answer = await gateway.call('POST', '/api/user/login', { raw: '{"email": ' });
    expect(answer).toMatchObject({ status: 400, code: 400, message: 'The request body is not valid JSON' });
  });

  it('answers a body over 64 KB with HTTP 413 in the envelope', async () => {
    const answer = await gateway.call('POST', '/api/user/login', { body: { email: 'a@example.com', password: 'x'.repeat(70_000) } });
    expect(answer).toMatchObject({ status: 413, code: 413 });
  });

  it('answers an unknown /api path with HTTP 404 in the envelope', async () => {
    const answer = await gateway.call('GET', '/api/no/such/call');
    expect(answer).toMatchObject({ status: 404, code: 404, message: 'No such call: GET /api/no/such/call' });
  });

  it('answers a crash with HTTP 500, the request id and no internals', async () => {
    const answer = await gateway.call('GET', '/api/crash');
    expect(answer.status).toBe(500);
    expect(answer.code).toBe(500);
    const requestId = answer.headers.get('x-request-id');
    expect(answer.message).toBe(`Something went wrong on our side (request ${requestId})`);
    expect(JSON.stringify(answer)).not.toContain('fire');
  });

  it('sends security headers and hides the framework', async () => {
    const response = await fetch(`${gateway.url}/api/user`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('answers /healthz, /readyz and Prometheus /metrics', async () => {
    expect(await (await fetch(`${gateway.url}/healthz`)).json()).toMatchObject({ code: 200, data: { status: 'alive' } });
    expect(await (await fetch(`${gateway.url}/readyz`)).json()).toMatchObject({ code: 200, data: { status: 'ready' } });
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_total\{[^}]*route="\/api\/user"/);
    expect(metrics).toContain('process_cpu_seconds_total');
  });
});

describe('routing', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.close());

  /** Every route path of a router and the routers it mounts. */
  const pathsOf = (router: { stack?: { route?: { path: unknown }; handle?: unknown }[] }): string[] =>
    (router.stack ?? []).flatMap((layer) => (layer.route ? [String(layer.route.path)] : layer.handle ? pathsOf(layer.handle as never) : []));

  // The gateway asks a module only for paths under its public prefixes (compose.ts, as it forwards to
  // one running apart): a route outside them would never be reached, here or apart.
  it('finds every public route of every module under that module’s prefixes', async () => {
    const outside: string[] = [];
    let seen = 0;
    for (const module of registry.modules) {
      const prefixes = module.publicPrefixes ?? [];
      const routes = (gateway.instances.get(module.name)?.routes ?? []).flatMap((router) => pathsOf(router as never));
      if (prefixes.length === 0) expect(routes, `${module.name} has routes but no public prefixes`).toEqual([]);
      seen += routes.length;
      for (const route of routes)
        if (!prefixes.some((prefix) => route === prefix || route.startsWith(`${prefix}/`))) outside.push(`${module.name}: ${route}`);
    }
    expect(outside).toEqual([]);
    expect(seen).toBeGreaterThan(50);
  });

  it('answers a call of a module’s prefix from that module and leaves a lookalike path to the 404', async () => {
    expect((await gateway.call('GET', '/api/homepage')).code).toBe(200);
    expect(await gateway.call('GET', '/api/homepageX')).toMatchObject({ status: 404, message: 'No such call: GET /api/homepageX' });
    // /api/user/checkin is the unlock service's, inside the user service's prefix.
    const token = await gateway.guest();
    expect((await gateway.call('GET', '/api/user/checkin', { token })).code).toBe(200);
  });
});

describe('readiness', () => {
  it('answers /readyz with HTTP 503 naming the database, not echoing its error, when the database is gone', async () => {
    const gateway = await startTestGateway();
    try {
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
      await gateway.platform.bus.stop();
      await gateway.platform.queue.stop();
      await gateway.platform.database.close();
      const answer = await fetch(`${gateway.url}/readyz`);
      expect(answer.status).toBe(503);
      // What is down, by name; the driver's own message (hosts, users, paths) stays in the log.
      expect(await answer.json()).toEqual({ code: 503, message: 'not ready: database', data: null });
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    } finally {
      await gateway.close().catch(() => {});
    }
  });
});

describe('rate limits', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ RATE_LIMIT_AUTH_PER_MINUTE: '3' });
  });
  afterAll(() => gateway.close());

  it('answers HTTP 429 in the envelope after too many login attempts', async () => {
    const attempts = [];
    for (let i = 0; i < 5; i++) attempts.push(await gateway.call('POST', '/api/user/login', { body: { email: 'a@example.com', password: 'wrong one' } }));
    expect(attempts.slice(0, 3).map((answer) => answer.code)).toEqual([500, 500, 500]);
    expect(attempts[4]).toMatchObject({ status: 429, code: 429 });
    expect((await gateway.call('GET', '/api/user')).code).toBe(200);
  });
});

describe.skipIf(!realRedisUrl)('rate limits across gateway replicas', () => {
  it('counts attempts at every replica against one limit in Redis', async () => {
    const env = { RATE_LIMIT_AUTH_PER_MINUTE: '3', REDIS_URL: realRedisUrl!, REDIS_PREFIX: `test-${Date.now()}` };
    const [one, two] = await Promise.all([startTestGateway(env), startTestGateway(env)]);
    try {
      const attempt = (gateway: TestGateway) => gateway.call('POST', '/api/user/login', { body: { email: 'a@example.com', password: 'wrong one' } });
      const codes = [];
      for (const gateway of [one, two, one, two]) codes.push((await attempt(gateway)).code);
      expect(codes).toEqual([500, 500, 500, 429]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('serving the storefront', () => {
  const dist = tempDir('storefront-dist-');
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="app"></div>');
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  let url = '';
  let site: Site;
  beforeAll(async () => {
    site = await startTestGateway({}, storefrontHandler(dist));
    url = site.url;
  });
  afterAll(() => site.close());

  it('serves index.html for deep links, uncached', async () => {
    for (const route of ['/', '/videos/abc', '/search', '/no/such/page']) {
      const response = await fetch(url + route, { headers: { accept: 'text/html' } });
      expect(response.status, route).toBe(200);
      expect(await response.text()).toContain('id="app"');
      expect(response.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('caches hashed assets for a year', async () => {
    const response = await fetch(`${url}/assets/index-abc123.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('never answers an /api path with the app shell', async () => {
    const response = await fetch(`${url}/api/unknown`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 404 });
  });
});
