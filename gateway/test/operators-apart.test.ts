import { afterAll, describe, expect, it } from 'vitest';
import { encodeContext, systemContext } from '@cliffhanger/platform';
import { freePort, startSiteProcess, type SiteProcess } from '@cliffhanger/platform/testing';

const sites: SiteProcess[] = [];
afterAll(() => Promise.all(sites.map((site) => site.stop())));

const INTERNAL_TOKEN = 'apart-operators-internal-token';
const ADMIN_TOKEN = 'apart-operators-admin-token';

/** `gateway/src/main.ts` with a TARGET, on its own embedded database, once it answers ready. */
async function start(target: string, port: number, env: Record<string, string>) {
  const site = await startSiteProcess({
    port,
    dataDirPrefix: 'operators-apart-',
    env: { DEMO: '0', LOG_LEVEL: 'warn', INTERNAL_TOKEN, ADMIN_TOKEN, TARGET: target, ...env },
    readyTimeoutMs: 150_000,
    readyWhat: `TARGET=${target} to be ready`,
  });
  sites.push(site);
  return site.origin;
}

async function call(url: string, method: string, pathname: string, options: { headers?: Record<string, string>; body?: unknown } = {}) {
  const response = await fetch(url + pathname, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { token: response.headers.get('x-user-token'), ...((await response.json()) as { code: number; message: string; data: any }) };
}

// Services apart from the gateway (issue 29): the role travels in the request context the gateway
// builds, and each service checks it; a caller without INTERNAL_TOKEN cannot hand a service a role.
describe('operators with the services apart from the gateway', () => {
  it('a role given through the gateway holds in the user and payment processes, and cannot be forged around it', async () => {
    const [servicesPort, gatewayPort] = await Promise.all([freePort(), freePort()]);
    const services = await start('user,catalog,unlock,payment,transcoder,analytics', servicesPort, { MEDIA_SECRET: 'apart-operators-media-secret-0123456789' });
    const urls = Object.fromEntries(['USER', 'CATALOG', 'UNLOCK', 'PAYMENT', 'TRANSCODER', 'ANALYTICS'].map((name) => [`${name}_SERVICE_URL`, services]));
    const gateway = await start('gateway', gatewayPort, urls);

    const email = `apart-${Date.now()}@example.com`;
    const password = 'apart-pass-1';
    const member = await call(gateway, 'POST', '/api/user/register', { body: { email, password, confirmPassword: password } });
    expect(member.code).toBe(200);
    expect((await call(gateway, 'GET', '/api/admin/users', { headers: { 'x-user-token': member.token! } })).code).toBe(403);

    const granted = await call(gateway, 'PUT', `/api/admin/users/${member.data.id}/role`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: { role: 'operator' } });
    expect(granted.data).toMatchObject({ role: 'operator' });
    const { token } = await call(gateway, 'POST', '/api/user/login', { body: { email, password } });
    const operator = { 'x-user-token': token! };
    const found = await call(gateway, 'GET', `/api/admin/users?query=${encodeURIComponent(email)}`, { headers: operator });
    expect(found.data.items).toEqual([expect.objectContaining({ id: member.data.id, role: 'operator' })]);
    expect((await call(gateway, 'GET', '/api/admin/plans', { headers: operator })).code).toBe(200);
    expect((await call(gateway, 'PUT', '/api/admin/plans/coins-100', { headers: operator, body: { title: 'Cheap' } })).code).toBe(403);

    // Straight to the service: without the internal token nothing is taken, whatever context it claims.
    const forged = encodeContext({ ...systemContext('forged'), userId: member.data.id, role: 'admin' });
    const direct = await call(services, 'PUT', '/api/admin/plans/coins-100', { headers: { 'x-cliffhanger-context': forged }, body: { title: 'Cheap' } });
    expect(direct.code).toBe(403);
    expect(direct.message).toBe('Internal calls only');
  }, 240_000);
});
