import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTarget, targetsOf } from '@cliffhanger/platform';
import { freePort, repoRoot, startSiteProcess, tempDir, type SiteProcess } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';

const sites: SiteProcess[] = [];
afterAll(() => Promise.all(sites.map((site) => site.stop())));

/** Starts `gateway/src/main.ts` with a TARGET on its own embedded database, and waits until it is ready. */
async function start(target: string, env: Record<string, string> = {}, port?: number) {
  const site = await startSiteProcess({
    port,
    dataDirPrefix: 'target-',
    env: { DEMO: '0', LOG_LEVEL: 'warn', INTERNAL_TOKEN: 'target-test-internal-token', TARGET: target, ...env },
    // A process loads every module it runs (and tsx compiles them) before it answers: on a busy machine, a minute or more.
    readyTimeoutMs: 150_000,
    readyWhat: `TARGET=${target} to be ready`,
  });
  sites.push(site);
  return site.origin;
}

describe('TARGET, from the module registry', () => {
  it('accepts all, gateway and every module name, alone or several at once', () => {
    expect(targetsOf(registry)).toEqual(['all', 'gateway', ...registry.modules.map((module) => module.name)]);
    expect(parseTarget(registry, 'user,catalog').modules.map((module) => module.name)).toEqual(['user', 'catalog']);
    expect(parseTarget(registry, 'all')).toMatchObject({ gateway: true, modules: registry.modules });
    expect(parseTarget(registry, 'gateway,analytics')).toMatchObject({ gateway: true, modules: [{ name: 'analytics' }] });
  });

  it('stops the start with one line for an unknown module or a missing service URL', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'gateway/src/main.ts'], {
        cwd: repoRoot,
        env: { ...process.env, DATA_DIR: tempDir('target-'), DEMO: '0', LOG_LEVEL: 'silent', INTERNAL_TOKEN: 'target-test-internal-token', ...env },
        encoding: 'utf8',
        timeout: 150_000,
      });
    const unknown = run({ TARGET: 'user,billing' });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr.trim()).toMatch(/^config: TARGET: 'billing' is not one of all, gateway, user, catalog/);
    const lonely = run({ TARGET: 'user' });
    expect(lonely.status).toBe(1);
    expect(lonely.stderr.trim()).toBe('config: CATALOG_SERVICE_URL: required when TARGET=user runs user, which needs catalog');
  }, 330_000);

  it('runs analytics alone: only internal calls are taken, and the pixel is left to the gateways', async () => {
    const url = await start('analytics');
    const direct = await fetch(`${url}/api/reports`).then((r) => r.json());
    expect(direct).toMatchObject({ code: 403, message: 'Internal calls only' });
    const internal = { 'x-internal-token': 'target-test-internal-token' };
    expect(await fetch(`${url}/api/reports`, { headers: internal }).then((r) => r.json())).toMatchObject({ code: 200, data: [] });
    expect(await fetch(`${url}/api/statics.png?event=landing`, { headers: internal }).then((r) => r.json())).toMatchObject({ code: 404 });
  }, 180_000);

  it('runs user and catalog in one process, asking each other in process and unlock apart', async () => {
    const [here, unlock] = await Promise.all([freePort(), freePort()]);
    const shared = { MEDIA_SECRET: 'target-test-media-secret-0123456789abcdef' };
    const url = await start('user,catalog', { ...shared, UNLOCK_SERVICE_URL: `http://127.0.0.1:${unlock}` }, here);
    await start('unlock', { ...shared, CATALOG_SERVICE_URL: url }, unlock);
    const internal = { 'x-internal-token': 'target-test-internal-token' };
    const user = await fetch(`${url}/api/user`, { headers: internal });
    expect(await user.json()).toMatchObject({ code: 200, data: { kind: 'guest' } });
    const homepage = await fetch(`${url}/api/homepage`, { headers: internal }).then((r) => r.json());
    expect(homepage).toMatchObject({ code: 200, data: { carousel: { items: [] } } });
  }, 330_000);
});
