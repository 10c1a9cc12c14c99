import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@cliffhanger/platform';
import { ADMIN_TOKEN, eventually, outboxEvents, realRedisUrl, startSite, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';

// Abuse from one address: password guessing behind forged X-Forwarded-For, guests by the thousand,
// history and pixel floods. Every limit counts per client address; these sites set them low.
const limits = { RATE_LIMIT_AUTH_PER_MINUTE: '3', RATE_LIMIT_GUEST_PER_MINUTE: '3', RATE_LIMIT_HISTORY_PER_MINUTE: '2', RATE_LIMIT_PIXEL_PER_MINUTE: '2' };
const startLimited = (env: Record<string, string> = {}) => startSite({ modules: registry.modules, env: { DEMO: '0', ...limits, ...env } });

const guessPassword = (site: Site, forwardedFor: string) =>
  site.call('POST', '/api/user/login', { body: { email: 'victim@example.com', password: 'a guess' }, headers: { 'x-forwarded-for': forwardedFor } });

const count = async (site: Site, query: ReturnType<typeof sql>) => (await queryRows<{ n: number }>(site.platform.database.db, query))[0]!.n;

describe('a site reached directly (TRUST_PROXY unset)', () => {
  let site: Site;
  let viewer: string;
  beforeAll(async () => {
    site = await startLimited();
    viewer = await site.guest(); // the first of the 3 guests this address may make this minute
  });
  afterAll(() => site?.close());

  it('rotating X-Forwarded-For does not get past the login limit', async () => {
    const codes = [];
    for (let i = 1; i <= 5; i++) codes.push((await guessPassword(site, `203.0.113.${i}`)).code);
    expect(codes).toEqual([500, 500, 500, 429, 429]);
  });

  it('counts only the calls that make a guest, and refuses the guest past the limit with no new account', async () => {
    for (let i = 0; i < 5; i++) expect((await site.call('GET', '/api/user', { token: viewer })).code).toBe(200);
    expect((await site.call('GET', '/api/user')).code).toBe(200);
    expect((await site.call('GET', '/api/user')).code).toBe(200);
    const accounts = await count(site, sql`select count(*)::int as n from users.users`);

    const refused = await site.call('GET', '/api/user', { token: 'A'.repeat(43) });
    expect(refused).toMatchObject({ status: 429, code: 429 });
    expect(refused.headers.get('x-user-token')).toBeNull();
    expect(await count(site, sql`select count(*)::int as n from users.users`)).toBe(accounts);
    // A viewer with a session reads itself whatever the address made before.
    expect((await site.call('GET', '/api/user', { token: viewer })).code).toBe(200);
  });

  it('answers history writes past the limit with 429', async () => {
    const write = () => site.call('POST', '/api/user/history', { token: viewer, body: { episodeId: 'no-such-episode', positionSeconds: 1 } });
    expect([(await write()).code, (await write()).code]).toEqual([404, 404]);
    expect(await write()).toMatchObject({ status: 429, code: 429 });
  });

  it('still answers the pixel past its limit, and records nothing more', async () => {
    const hits = async () => (await outboxEvents(site.platform.database.db, 'statics.hit')).length;
    const before = await hits();
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${site.url}/api/statics.png?event=landing&n=${i}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await response.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    }
    await eventually(async () => (await hits()) - before === 2, 10_000, 'the two hits within the limit');
    // Written a moment after they arrive: give the two over the limit the time to show, if they were kept.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await hits()) - before).toBe(2);
  });
});

describe('a site behind one proxy (TRUST_PROXY=1)', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startLimited({ TRUST_PROXY: '1' });
  });
  afterAll(() => site?.close());

  // The test plays the proxy: it appends the address it saw to whatever the client sent. A client on
  // a private network (10.20.30.40) was trusted as a proxy before, so its forged entries counted.
  it('rotating X-Forwarded-For does not get past the login limit, and each real client counts alone', async () => {
    const codes = [];
    for (let i = 1; i <= 5; i++) codes.push((await guessPassword(site, `203.0.113.${i}, 10.20.30.40`)).code);
    expect(codes).toEqual([500, 500, 500, 429, 429]);
    expect((await guessPassword(site, '203.0.113.1, 10.20.30.41')).code).toBe(500);
  });

  it('counts a login however its path is spelt: in capitals, with a trailing slash', async () => {
    const codes = [];
    for (const path of ['/API/User/Login', '/api/user/login/', '/Api/USER/login', '/api/user/login'])
      codes.push((await site.call('POST', path, { body: { email: 'victim@example.com', password: 'a guess' }, headers: { 'x-forwarded-for': '203.0.113.50, 10.20.30.50' } })).code);
    expect(codes).toEqual([500, 500, 500, 429]);
  });
});

describe.skipIf(!realRedisUrl)('limits across gateway replicas', () => {
  it('counts guests made at every replica against one limit in Redis; each replica counts pixel hits alone', async () => {
    const env = { REDIS_URL: realRedisUrl!, REDIS_PREFIX: `test-abuse-${Date.now()}` };
    const [one, two] = await Promise.all([startLimited(env), startLimited(env)]);
    try {
      const codes = [];
      for (const site of [one, two, one, two]) codes.push((await site.call('GET', '/api/user')).code);
      expect(codes).toEqual([200, 200, 200, 429]);
      const hits = async (site: Site) => (await fetch(`${site.url}/api/statics.png?event=landing`)).status;
      // The pixel is answered at each gateway's edge without a round trip to Redis: limit 2 per replica.
      expect([await hits(one), await hits(two), await hits(one), await hits(one)]).toEqual([200, 200, 200, 200]);
      const recorded = async (site: Site) => (await outboxEvents(site.platform.database.db, 'statics.hit')).length;
      await eventually(async () => (await recorded(one)) === 2 && (await recorded(two)) === 1, 10_000, 'two hits at one replica, one at the other');
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it("counts history writes at every replica against one limit: a client's first at a replica with Redis, its next ones there at once", async () => {
    const env = { REDIS_URL: realRedisUrl!, REDIS_PREFIX: `test-abuse-history-${Date.now()}` };
    const [one, two] = await Promise.all([startLimited(env), startLimited(env)]);
    const redis = one.platform.redis!;
    try {
      // Counted whoever writes (these have no session: 401 from the route, after the limit).
      const write = (site: Site) => site.call('POST', '/api/user/history', { body: { episodeId: 'e1', positionSeconds: 1 } });
      expect([(await write(one)).code, (await write(one)).code]).toEqual([401, 401]);
      const counted = async () => {
        const keys = await redis.keys(`${env.REDIS_PREFIX}:rate:history:*`);
        return keys.length === 1 ? Number(await redis.get(keys[0]!)) : 0;
      };
      await eventually(async () => (await counted()) === 2, 10_000, "the first replica's two writes in Redis");
      // The other replica asks Redis about a client new to it: the third write of the minute.
      expect(await write(two)).toMatchObject({ status: 429, code: 429 });
      expect(await write(one)).toMatchObject({ status: 429, code: 429 });
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('operations in production', () => {
  const METRICS_TOKEN = 'test-metrics-token-0123456789';
  const production = { NODE_ENV: 'production', DEMO: '0', SMTP_URL: 'smtp://127.0.0.1:2525', PUBLIC_URL: 'https://cliffhanger.example', PAYMENT_PROVIDER: 'sandbox' };
  let site: Site;
  beforeAll(async () => {
    site = await startSite({ modules: registry.modules, env: { ...production, METRICS_TOKEN } });
  });
  afterAll(() => site?.close());
  const scrape = (token?: string) => fetch(`${site.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it('serves /metrics only with METRICS_TOKEN: not to anyone, not with the admin token', async () => {
    const anonymous = await scrape();
    expect(anonymous.status).toBe(401);
    expect((await fetch(`${site.url}/METRICS`)).status).toBe(401);
    expect(await anonymous.text()).not.toContain('process_cpu_seconds_total');
    expect((await scrape('not-the-metrics-token')).status).toBe(401);
    // The admin token changes the catalog; the scraper holds a token of its own, and the admin's opens no metrics.
    const admin = await scrape(ADMIN_TOKEN);
    expect(admin.status).toBe(401);
    expect(await admin.json()).toMatchObject({ message: 'Metrics need the metrics token' });
    const scraper = await scrape(METRICS_TOKEN);
    expect(scraper.status).toBe(200);
    expect(await scraper.text()).toContain('process_cpu_seconds_total');
  });

  it('closes /metrics to everyone when METRICS_TOKEN is not set, and says which setting opens it', async () => {
    const closed = await startSite({ modules: registry.modules, env: production });
    try {
      for (const token of [undefined, ADMIN_TOKEN]) {
        const answer = await fetch(`${closed.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
        expect(answer.status).toBe(401);
        expect(await answer.json()).toMatchObject({ message: 'Metrics are off: set METRICS_TOKEN to scrape them' });
      }
    } finally {
      await closed.close();
    }
  });
});
