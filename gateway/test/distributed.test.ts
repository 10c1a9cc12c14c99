import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, eventually, freePort, realDatabaseUrl, realRedisUrl, startObjectStore, startSiteProcess, tempDir, type ObjectStore, type SiteProcess } from '@cliffhanger/platform/testing';
import { renderDemoEpisode } from '@cliffhanger/demo';
import { startOpenIdProvider, throughProvider, type OpenIdProvider } from '../../services/user/test/openid-provider.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const targets = ['user', 'catalog', 'unlock', 'payment', 'transcoder', 'analytics', 'gateway'] as const;


// The distributed deployment, as separate processes sharing a real PostgreSQL and Redis (only the
// real-servers pass of npm test has them) and media in an S3-protocol server (s3rver): no two
// processes share a disk.
describe.skipIf(!realDatabaseUrl || !realRedisUrl)('the distributed deployment (a process per part)', () => {
  const parts: SiteProcess[] = [];
  const logs: string[] = [];
  let gateway = '';
  let ports: Record<(typeof targets)[number], number>;
  let dropDatabase: () => Promise<void> = async () => {};
  let s3: ObjectStore | null = null;
  const admin = { authorization: 'Bearer distributed-admin-token' };
  let env: Record<string, string> = {};
  let op: OpenIdProvider;
  const running = new Map<string, ChildProcess>();

  /** Starts one part as its own process and waits until it answers ready (services migrate at start). */
  async function startPart(target: (typeof targets)[number]): Promise<void> {
    const part = await startSiteProcess({
      port: ports[target],
      dataDirPrefix: `distributed-${target}-`,
      env: { ...env, TARGET: target },
      onOutput: (text) => logs.push(`[${target}] ${text}`),
      readyTimeoutMs: 150_000,
      readyWhat: `${target} to be ready`,
    });
    parts.push(part);
    running.set(target, part.child);
  }

  /** Kills one part the hard way (a crashed pod), and waits until it is gone. */
  async function killPart(target: (typeof targets)[number]): Promise<void> {
    const child = running.get(target)!;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }

  beforeAll(async () => {
    // The gateway serves the built storefront, series pages with their own head tags: as `npm start`, build it when stale.
    execFileSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { cwd: root, stdio: 'ignore' });
    const scratch = await createScratchDatabase();
    dropDatabase = scratch.drop;
    ports = Object.fromEntries(await Promise.all(targets.map(async (target) => [target, await freePort()] as const))) as typeof ports;
    op = await startOpenIdProvider([
      { clientId: 'distributed-google', clientSecret: 'distributed-google-secret-0123', redirectUris: [`http://127.0.0.1:${ports.gateway}/api/user/oauth/google/callback`] },
    ]);
    s3 = await startObjectStore('distributed-media');
    const shared = {
      NODE_ENV: 'production',
      // Required in production; this suite sends no mail (PUBLIC_URL below).
      SMTP_URL: 'smtp://127.0.0.1:2525',
      LOG_LEVEL: 'warn',
      DATABASE_URL: scratch.url,
      REDIS_URL: realRedisUrl!,
      REDIS_PREFIX: `distributed-${Date.now()}`,
      DEMO: '0',
      ...s3.env,
      MEDIA_SECRET: 'distributed-media-secret-0123456789abcdef',
      INTERNAL_TOKEN: 'distributed-internal-token',
      ADMIN_TOKEN: 'distributed-admin-token',
      USER_SERVICE_URL: `http://127.0.0.1:${ports.user}`,
      CATALOG_SERVICE_URL: `http://127.0.0.1:${ports.catalog}`,
      ANALYTICS_SERVICE_URL: `http://127.0.0.1:${ports.analytics}`,
      UNLOCK_SERVICE_URL: `http://127.0.0.1:${ports.unlock}`,
      PAYMENT_SERVICE_URL: `http://127.0.0.1:${ports.payment}`,
      // Test payments on purpose in production mode; its webhooks reach the payment service through the gateway.
      PAYMENT_PROVIDER: 'sandbox',
      PUBLIC_URL: `http://127.0.0.1:${ports.gateway}`,
      GOOGLE_CLIENT_ID: 'distributed-google',
      GOOGLE_CLIENT_SECRET: 'distributed-google-secret-0123',
      GOOGLE_ISSUER: op.issuer,
    };
    env = shared;
    for (const target of targets) await startPart(target);
    gateway = `http://127.0.0.1:${ports.gateway}`;
  }, 360_000);

  afterAll(async () => {
    await Promise.all(parts.map((part) => part.stop()));
    await dropDatabase();
    await s3?.close();
    await op?.close();
  }, 60_000);

  async function call(method: string, route: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const response = await fetch(gateway + route, {
      method,
      headers: { 'content-type': 'application/json', ...(options.token ? { 'x-user-token': options.token } : {}), ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, headers: response.headers, ...(await response.json()) };
  }

  it('signs a guest up and in through the gateway and the user service', async () => {
    const guest = await call('GET', '/api/user');
    expect(guest.data.kind).toBe('guest');
    const token = guest.headers.get('x-user-token');
    const email = `apart${Date.now()}@example.com`;
    const member = await call('POST', '/api/user/register', { token, body: { email, password: 'apart-pass-1', confirmPassword: 'apart-pass-1' } });
    expect(member.data).toMatchObject({ id: guest.data.id, kind: 'member', email });
    const login = await call('POST', '/api/user/login', { body: { email, password: 'apart-pass-1' } });
    expect(login.code).toBe(200);
    const logout = await call('POST', '/api/user/logout', { token: login.headers.get('x-user-token'), body: {} });
    expect(logout.code).toBe(200);
    expect((await call('GET', '/api/user/favorite', { token: login.headers.get('x-user-token') })).code).toBe(401);
  });

  it('signs a guest in with an OpenID provider through the gateway, the sign-in bound to its browser by a cookie', async () => {
    const guest = await call('GET', '/api/user');
    const token = guest.headers.get('x-user-token')!;
    const started = await fetch(`${gateway}/api/user/oauth/google/start?redirect=/my`, { redirect: 'manual' });
    expect(started.status).toBe(302);
    // The binding cookie the user service sets comes back through the gateway, and goes on to it.
    const cookie = started.headers.getSetCookie().find((line) => line.startsWith('cliffhanger_sign_in='))?.split(';')[0];
    expect(cookie).toBeDefined();
    const person = `apart-person-${Date.now()}`;
    op.accounts.set(person, { email: `${person}@example.com` });
    op.signInAs(person);
    const answer = await throughProvider(started.headers.get('location')!, `${gateway}/api/user/oauth/google/callback`);
    const landing = await fetch(`${gateway}${answer.pathname}${answer.search}`, { redirect: 'manual' });
    const code = new URL(landing.headers.get('location')!, gateway).searchParams.get('oauth');
    expect(code).toBeTruthy();
    const elsewhere = await call('POST', '/api/user/oauth/exchange', { body: { code } });
    expect(elsewhere.code).toBe(422);
    const again = await fetch(`${gateway}/api/user/oauth/google/start?redirect=/my`, { redirect: 'manual', headers: { cookie: cookie! } });
    // Every start binds with a binding of its own, never the cookie the browser sent: the browser keeps the new one.
    const rebound = again.headers.getSetCookie().find((line) => line.startsWith('cliffhanger_sign_in='))?.split(';')[0];
    expect(rebound).toBeDefined();
    expect(rebound).not.toBe(cookie);
    op.signInAs(person);
    const second = await throughProvider(again.headers.get('location')!, `${gateway}/api/user/oauth/google/callback`);
    const back = await fetch(`${gateway}${second.pathname}${second.search}`, { redirect: 'manual' });
    const exchanged = await call('POST', '/api/user/oauth/exchange', { token, headers: { cookie: rebound! }, body: { code: new URL(back.headers.get('location')!, gateway).searchParams.get('oauth') } });
    expect(exchanged.data).toMatchObject({ id: guest.data.id, kind: 'member', email: `${person}@example.com` });
  });

  /** A new series (free unless `terms` say otherwise) with one real 2 s episode uploaded through the gateway; answers its id. */
  async function seriesWithClip(title: string, hue: number, terms = { freeEpisodes: 1, priceCoins: 30 }): Promise<string> {
    const series = await call('POST', '/api/admin/videos', { headers: admin, body: { title, tags: ['Romance'], ...terms } });
    expect(series.code).toBe(200);
    const clip = path.join(tempDir('clip-'), 'episode.mp4');
    await renderDemoEpisode({ outFile: clip, seriesTitle: title, episodeNumber: 1, seconds: 2, width: 240, height: 426, hue });
    const upload = await fetch(`${gateway}/api/admin/videos/${series.data.video.id}/episodes?number=1`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'video/mp4' },
      body: fs.readFileSync(clip),
    }).then((response) => response.json());
    expect(upload.code).toBe(200);
    return series.data.video.id;
  }

  /** The series once its first episode is ready to play. */
  const readySeries = (videoId: string) =>
    eventually(async () => {
      const answer = await call('GET', `/api/video?id=${videoId}`);
      return answer.data?.episodes?.[0]?.ready ? answer.data : null;
    }, 120_000, `the episode of ${videoId} to be ready:\n${logs.join('')}`);

  it('transcodes an upload in the transcoder process and plays it through the gateway', async () => {
    const videoId = await seriesWithClip('Apart Together', 200);
    const video = await readySeries(videoId);
    const episode = await call('GET', `/api/video/episode?id=${video.episodes[0].id}`);
    const master = await fetch(new URL(episode.data.playback.url, gateway));
    expect(master.status).toBe(200);
    expect(master.headers.get('x-content-type-options')).toBe('nosniff');
    expect(master.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(await master.text()).toMatch(/^#EXTM3U/);

    const token = (await call('GET', '/api/user')).headers.get('x-user-token')!;
    expect((await call('POST', '/api/user/favorite', { token, body: { videoId } })).code).toBe(200);
    const favorites = await call('GET', '/api/user/favorite', { token });
    expect(favorites.data.items).toMatchObject([{ id: videoId, title: 'Apart Together' }]);

    // The gateway asks the catalog process for what crawlers and link previews read.
    const sitemap = await fetch(`${gateway}/sitemap.xml`).then((response) => response.text());
    expect(sitemap).toContain(`${gateway}/videos/${videoId}</loc>`);
    const page = await fetch(`${gateway}/videos/${videoId}`).then((response) => response.text());
    expect(page).toContain('<meta property="og:title" content="Apart Together');
    // And for the home page, which arrives server-rendered from the catalog's homepage and shared rankings.
    const home = await fetch(`${gateway}/`, { headers: { accept: 'text/html' } }).then((response) => response.text());
    expect(home).toContain('<div id="app" data-server-rendered>');
    expect(home).toMatch(/"new":\{"items":\[[^\]]*"title":"Apart Together"/);
  }, 180_000);

  it('serves the console, and takes a resumable upload cut halfway and resumed, which the catalog process stores and the transcoder process plays', async () => {
    const console_ = await fetch(`${gateway}/admin/content`, { headers: { accept: 'text/html' } });
    expect(console_.status).toBe(200);
    const consoleHtml = await console_.text();
    expect(consoleHtml).toContain('<div id="admin"></div>');
    const entry = /<script type="module" crossorigin src="(\/assets\/admin-[\w-]+\.js)"/.exec(consoleHtml)?.[1];
    expect((await fetch(`${gateway}${entry}`)).status).toBe(200);

    const series = await call('POST', '/api/admin/videos', { headers: admin, body: { title: 'Sent In Halves', tags: ['Romance'], freeEpisodes: 1, priceCoins: 30 } });
    const clip = path.join(tempDir('tus-clip-'), 'episode.mp4');
    await renderDemoEpisode({ outFile: clip, seriesTitle: 'Sent In Halves', episodeNumber: 1, seconds: 2, width: 240, height: 426, hue: 120 });
    const bytes = fs.readFileSync(clip);
    const tus = { ...admin, 'tus-resumable': '1.0.0' };
    const meta = (fields: Record<string, string>) => Object.entries(fields).map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`).join(',');
    const created = await fetch(`${gateway}/api/admin/uploads`, {
      method: 'POST',
      headers: { ...tus, 'upload-length': String(bytes.length), 'upload-metadata': meta({ seriesId: series.data.video.id, number: '1' }) },
    });
    expect(created.status).toBe(201);
    const upload = new URL(created.headers.get('location')!, gateway).href;

    // The connection drops halfway: the first half is sent, then the request is cut off.
    const cut = new AbortController();
    const half = Math.floor(bytes.length / 2);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, half));
      },
      pull: () => new Promise(() => setTimeout(() => cut.abort(), 1_000)),
    });
    await fetch(upload, {
      method: 'PATCH',
      headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body,
      signal: cut.signal,
      duplex: 'half',
    } as RequestInit).catch(() => undefined);
    // The catalog kept what arrived; the upload goes on from there, sending nothing twice.
    const offset = await eventually(async () => {
      const head = await fetch(upload, { method: 'HEAD', headers: tus });
      const at = Number(head.headers.get('upload-offset'));
      return head.status === 200 && at > 0 ? at : null;
    }, 30_000, 'the half that arrived to be kept');
    expect(offset).toBeLessThanOrEqual(half);
    const rest = await fetch(upload, {
      method: 'PATCH',
      headers: { ...tus, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
      body: bytes.subarray(offset),
    });
    expect(rest.status).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe(String(bytes.length));
    expect(rest.headers.get('episode-id')).toBeTruthy();

    // The transcoder process, with no disk shared with the catalog's, read the source from object storage.
    const video = await readySeries(series.data.video.id);
    const episode = await call('GET', `/api/video/episode?id=${video.episodes[0].id}`);
    expect((await fetch(new URL(episode.data.playback.url, gateway))).status).toBe(200);
    const audit = await call('GET', '/api/admin/audit?action=episode.upload', { headers: admin });
    expect(JSON.stringify(audit.data)).toContain(video.episodes[0].id);
  }, 180_000);

  it('answers the pixel at the gateway, leaves the reports to the analytics process, and keeps unlock and the check-in behind the gateway', async () => {
    const pixel = await fetch(`${gateway}/api/statics.png?event=landing`);
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/png');
    const reports = await call('GET', '/api/reports');
    expect(reports).toMatchObject({ code: 200, data: [] });
    const token = (await call('GET', '/api/user')).headers.get('x-user-token')!;
    expect(await call('GET', '/api/video/unlocked', { token })).toMatchObject({ code: 200, data: { items: [], hasMore: false } });
    expect(await call('POST', '/api/video/unlock', { token, body: { episodeId: 'no-such-episode' } })).toMatchObject({ code: 404 });
    // /api/user/checkin reaches the unlock process ahead of the user service's /api/user, with the
    // viewer's time zone: the next check-in opens at the next midnight in Kiritimati (10:00 UTC), or
    // 20 hours after this one when that is later (docs/api.md).
    const checkedAt = Date.now();
    const checkin = await call('POST', '/api/user/checkin', { token, headers: { 'x-time-zone': 'Pacific/Kiritimati' }, body: {} });
    expect(checkin.data).toMatchObject({ streak: 1, coinsAwarded: 5, balance: 5 });
    const kiritimatiMidnight = new Date(checkedAt);
    kiritimatiMidnight.setUTCHours(10, 0, 0, 0);
    if (kiritimatiMidnight.getTime() <= checkedAt) kiritimatiMidnight.setUTCDate(kiritimatiMidnight.getUTCDate() + 1);
    const opensAt = Math.max(kiritimatiMidnight.getTime(), checkedAt + 20 * 3_600_000);
    expect(Math.abs(Date.parse(checkin.data.nextAt) - opensAt)).toBeLessThan(60_000);
    expect((await call('GET', '/api/user', { token })).data).toMatchObject({ coins: 5, bonusCoins: 5 });
  });

  it('buys coins in the payment process and unlocks an episode in the unlock process, through the gateway', async () => {
    // Only an episode that plays is sold: a real clip, transcoded.
    const videoId = await seriesWithClip('Apart Paid', 120, { freeEpisodes: 0, priceCoins: 40 });
    const episodeId = (await readySeries(videoId)).episodes[0].id;

    const token = (await call('GET', '/api/user')).headers.get('x-user-token')!;
    const plans = await call('GET', '/api/plan', { token });
    const pack = plans.data.find((plan: { kind: string; firstPurchaseOnly?: boolean }) => plan.kind === 'coins' && !plan.firstPurchaseOnly);
    const order = await call('POST', '/api/payment/order', { token, body: { planId: pack.id } });
    expect(order.data).toMatchObject({ planId: pack.id, status: 'created' });
    const card = await fetch(`${gateway}/sandbox/v1/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } }),
    }).then((response) => response.json());
    expect(card.id).toMatch(/^tok_/);
    const pay = await call('POST', '/api/payment/pay', {
      token,
      headers: { 'idempotency-key': `apart-${Date.now()}` },
      body: { orderId: order.data.id, paymentToken: card.id, email: 'apart@example.com', firstName: 'Ada', lastName: 'Apart' },
    });
    expect(pay.data).toMatchObject({ orderId: order.data.id, status: 'succeeded' });
    const coins = pack.coins + (pack.bonusCoins ?? 0);
    expect((await call('GET', '/api/user', { token })).data.coins).toBe(coins);

    expect((await call('GET', `/api/video/episode?id=${episodeId}`, { token })).code).toBe(402);
    const unlocked = await call('POST', '/api/video/unlock', { token, body: { episodeId } });
    expect(unlocked.data).toEqual({ episodeId, balance: coins - 40 });
    const video = await call('GET', `/api/video?id=${videoId}`, { token });
    expect(video.data.episodes[0]).toMatchObject({ id: episodeId, locked: false });
    expect((await call('GET', '/api/video/unlocked', { token })).data.items).toMatchObject([{ video: { id: videoId }, episodes: [1] }]);
  }, 180_000);

  it('with the user service dead, browsing and the pixel go on as anonymous, its own calls answer 503, and it comes back', async () => {
    const token = (await call('GET', '/api/user')).headers.get('x-user-token')!;
    await killPart('user');
    const home = await call('GET', '/api/homepage', { token });
    expect(home.code).toBe(200);
    expect(home.headers.get('x-identity-unavailable')).toBe('1');
    const pixel = await fetch(`${gateway}/api/statics.png?event=landing&during=user-down`, { headers: { 'x-user-token': token } });
    expect([pixel.status, pixel.headers.get('content-type')]).toEqual([200, 'image/png']);
    // A call that needs a user cannot be told who that is: 503, never a 401 that would sign them out.
    expect(await call('GET', '/api/video/unlocked', { token })).toMatchObject({ code: 503, message: 'Your account cannot be checked right now. Please try again shortly.' });
    const own = await call('GET', '/api/user', { token });
    expect(own).toMatchObject({ status: 503, code: 503, message: 'The user service is unavailable right now. Please try again shortly.' });
    // Its circuit is open now: the gateway answers at once instead of trying a dead service each time.
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect((await call('GET', '/api/user/favorite', { token })).code).toBe(503);
    expect(Date.now() - started).toBeLessThan(2_000);

    await startPart('user');
    const back = await eventually(async () => {
      const answer = await call('GET', '/api/user', { token });
      return answer.code === 200 ? answer : null;
    }, 30_000, 'the user service to answer again');
    expect(back.data.kind).toBe('guest');
    expect((await call('GET', '/api/homepage', { token })).headers.get('x-identity-unavailable')).toBeNull();
  }, 120_000);

  it('with the analytics service dead, its calls answer 503 and no event is lost: once back it counts what happened meanwhile', async () => {
    await killPart('analytics');
    expect(await call('GET', '/api/reports')).toMatchObject({ status: 503, code: 503 });
    const day = new Date().toISOString().slice(0, 10);
    const fbclid = `while-down-${Date.now()}`;
    // Three visits' landings (a landing counts once per visit id: docs/analytics.md).
    for (let i = 0; i < 3; i++) expect((await fetch(`${gateway}/api/statics.png?event=landing&visit=${fbclid}-${i}&fbclid=${fbclid}`)).status).toBe(200);
    await startPart('analytics');
    const row = await eventually(async () => {
      const summary = await call('GET', `/api/admin/analytics/summary?from=${day}&to=${day}&by=clickId`, { headers: admin });
      return summary.data?.find?.((entry: { key: string }) => entry.key === fbclid) ?? null;
    }, 30_000, 'the landings made while analytics was down');
    expect(row.landings).toBe(3);
  }, 120_000);

  it('with the transcoder dead, an upload waits as a job and is transcoded once it is back: no job lost', async () => {
    await killPart('transcoder');
    const videoId = await seriesWithClip('Apart Later', 40);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await call('GET', `/api/video?id=${videoId}`)).data.episodes[0].ready).toBe(false);

    await startPart('transcoder');
    const video = await readySeries(videoId);
    const episode = await call('GET', `/api/video/episode?id=${video.episodes[0].id}`);
    expect(await (await fetch(new URL(episode.data.playback.url, gateway))).text()).toMatch(/^#EXTM3U/);
  }, 180_000);

  it('refuses calls to a service that do not come through the gateway', async () => {
    const direct = await fetch(`http://127.0.0.1:${ports.user}/api/user`).then((response) => response.json());
    expect(direct).toMatchObject({ code: 403, message: 'Internal calls only' });
    const forged = await fetch(`http://127.0.0.1:${ports.catalog}/internal/catalog/cards?ids=x`, { headers: { 'x-internal-token': 'guess' } });
    expect(await forged.json()).toMatchObject({ code: 403 });
  });
});
