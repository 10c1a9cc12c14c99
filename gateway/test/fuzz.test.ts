import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';

// Every call of docs/api.md, and /media, under hostile input: never a 5xx, always the envelope on
// /api (a PNG from the pixel), and the site still answers afterwards. Bounded: one pass of each
// hostile value through each call and field.

const calls: { method: string; path: string; fields: string[] }[] = [
  { method: 'GET', path: '/api/user', fields: [] },
  { method: 'POST', path: '/api/user/register', fields: ['email', 'password', 'confirmPassword'] },
  { method: 'POST', path: '/api/user/login', fields: ['email', 'password'] },
  { method: 'POST', path: '/api/user/logout', fields: [] },
  { method: 'POST', path: '/api/user/password/forgot', fields: ['email'] },
  { method: 'POST', path: '/api/user/password/reset', fields: ['token', 'password', 'confirmPassword'] },
  { method: 'GET', path: '/api/user/favorite', fields: ['page', 'size'] },
  { method: 'POST', path: '/api/user/favorite', fields: ['videoId'] },
  { method: 'DELETE', path: '/api/user/favorite', fields: ['videoId'] },
  { method: 'GET', path: '/api/user/history', fields: ['page', 'size'] },
  { method: 'POST', path: '/api/user/history', fields: ['episodeId', 'positionSeconds'] },
  { method: 'POST', path: '/api/user/settings', fields: ['autoUnlock'] },
  { method: 'GET', path: '/api/user/checkin', fields: [] },
  { method: 'POST', path: '/api/user/checkin', fields: [] },
  { method: 'GET', path: '/api/user/oauth/providers', fields: [] },
  { method: 'GET', path: '/api/user/oauth/google/start', fields: ['redirect'] },
  { method: 'GET', path: '/api/user/oauth/google/callback', fields: ['code', 'state', 'error'] },
  { method: 'GET', path: '/api/user/oauth/facebook/start', fields: ['redirect'] },
  { method: 'POST', path: '/api/user/oauth/exchange', fields: ['code'] },
  { method: 'GET', path: '/api/tag', fields: [] },
  { method: 'GET', path: '/api/homepage', fields: [] },
  { method: 'GET', path: '/api/homepage/query', fields: ['keyword', 'tagId', 'sectionId', 'page', 'size'] },
  { method: 'GET', path: '/api/video/feed', fields: ['page', 'size'] },
  { method: 'GET', path: '/api/video', fields: ['id'] },
  { method: 'GET', path: '/api/video/episode', fields: ['id'] },
  { method: 'POST', path: '/api/video/unlock', fields: ['episodeId'] },
  { method: 'GET', path: '/api/video/unlocked', fields: ['page', 'size'] },
  { method: 'GET', path: '/api/plan', fields: [] },
  { method: 'GET', path: '/api/payment', fields: ['page', 'size'] },
  { method: 'GET', path: '/api/payment/config', fields: [] },
  { method: 'POST', path: '/api/payment/order', fields: ['planId'] },
  { method: 'POST', path: '/api/payment/pay', fields: ['orderId', 'paymentToken', 'email', 'firstName', 'lastName'] },
  { method: 'POST', path: '/api/payment/complete', fields: ['orderId'] },
  { method: 'POST', path: '/api/payment/paypal', fields: ['orderId'] },
  { method: 'POST', path: '/api/payment/cancel', fields: [] },
  { method: 'POST', path: '/api/payment/resume', fields: [] },
  { method: 'GET', path: '/api/webhook/payment/paypal-cancel', fields: ['orderId'] },
  { method: 'POST', path: '/api/webhook/payment/stripe', fields: ['id', 'type', 'data'] },
  { method: 'GET', path: '/api/reports', fields: [] },
  { method: 'GET', path: '/api/admin/plans', fields: [] },
  { method: 'PUT', path: '/api/admin/plans/coins-100', fields: ['title', 'price', 'coins', 'active'] },
  { method: 'POST', path: '/api/admin/orders/x/refund', fields: ['reason'] },
  { method: 'GET', path: '/api/admin/orders', fields: ['email', 'orderId', 'status', 'from', 'to', 'page', 'size'] },
  { method: 'POST', path: '/api/admin/plans', fields: ['id', 'kind', 'title', 'price', 'coins', 'periodDays', 'periodMonths'] },
  { method: 'POST', path: '/api/admin/plans/x/retire', fields: [] },
  { method: 'GET', path: '/api/admin/users', fields: ['query', 'page', 'size'] },
  { method: 'GET', path: '/api/admin/users/x', fields: [] },
  { method: 'POST', path: '/api/admin/users/x/sessions/revoke', fields: [] },
  { method: 'POST', path: '/api/admin/users/x/grants', fields: ['coins', 'vipDays', 'reason'] },
  { method: 'PUT', path: '/api/admin/users/x/role', fields: ['role'] },
  { method: 'GET', path: '/api/admin/audit', fields: ['actor', 'action', 'from', 'to', 'page', 'size'] },
  { method: 'GET', path: '/api/admin/videos', fields: ['query', 'tag', 'visibility', 'failed', 'page', 'size'] },
  { method: 'POST', path: '/api/admin/videos', fields: ['title', 'description', 'tags', 'freeEpisodes', 'priceCoins', 'hidden'] },
  { method: 'GET', path: '/api/admin/videos/x', fields: [] },
  { method: 'PATCH', path: '/api/admin/videos/x', fields: ['title', 'description', 'tags', 'freeEpisodes', 'priceCoins', 'hidden'] },
  { method: 'PUT', path: '/api/admin/videos/x/episodes/order', fields: ['episodeIds'] },
  { method: 'POST', path: '/api/admin/videos/x/episodes', fields: ['number', 'title'] },
  { method: 'GET', path: '/api/admin/episodes/x', fields: [] },
  { method: 'POST', path: '/api/admin/episodes/x/retranscode', fields: [] },
  { method: 'PUT', path: '/api/admin/sections/x', fields: ['title', 'kind', 'position', 'videoIds'] },
  { method: 'GET', path: '/api/admin/events/dead', fields: ['limit'] },
  { method: 'POST', path: '/api/admin/events/replay', fields: ['ids'] },
  { method: 'GET', path: '/api/admin/analytics/summary', fields: ['from', 'to', 'by', 'format'] },
  { method: 'GET', path: '/api/admin/analytics/playback', fields: ['from', 'to', 'by'] },
];

const hostileValues: unknown[] = [
  '\u0000',
  'a\u0000b',
  '\u0001\u001f\u007f',
  '\ud800',
  'x'.repeat(100_000),
  -1,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  true,
  null,
  [],
  [[[[[[]]]]]],
  { $gt: '' },
  { __proto__: { admin: true } },
  '<script>alert(1)</script>',
  "' or 1=1 --",
  '../../../../etc/passwd',
  '%00',
  '💔'.repeat(1000),
];

const asQuery = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

let site: Site;
let token: string;
beforeAll(async () => {
  // Google configured where nothing answers: its start and callback run their checks, then send the browser back to /login.
  site = await startSite({
    modules: registry.modules,
    env: { DEMO: '0', GOOGLE_CLIENT_ID: 'fuzz-google', GOOGLE_CLIENT_SECRET: 'fuzz-google-secret', GOOGLE_ISSUER: 'http://127.0.0.1:1' },
  });
  token = await site.guest();
});
afterAll(() => site?.close());

/** One raw request; answers status, content type and body text, whatever the server does. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer | string) {
  return new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    // A declared length: Node sends a DELETE's body unframed otherwise.
    const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const request = http.request(`${site.url}${path}`, { method, headers: framed }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, type: String(response.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('latin1') }));
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

function expectEnvelope(answer: { status: number; type: string; text: string }, what: string) {
  expect(answer.status, what).toBeLessThan(500);
  // The browser's own navigations (the PayPal return, a social sign-in's start and callback) are redirects, not API answers.
  const navigations = ['/api/webhook/payment/paypal-cancel', '/api/user/oauth/google/start', '/api/user/oauth/google/callback'];
  if (navigations.some((path) => what.includes(`${path} `)) && answer.status >= 300 && answer.status < 400) return;
  expect(answer.type, what).toMatch(/^application\/json/);
  const envelope = JSON.parse(answer.text) as { code: unknown; message: unknown };
  expect(typeof envelope.code, what).toBe('number');
  expect(typeof envelope.message, what).toBe('string');
}

describe('every call under hostile input', () => {
  const withAdmin = (path: string): Record<string, string> => (path.startsWith('/api/admin') ? { authorization: `Bearer test-admin-token-0123456789` } : {});
  // A test of its own per call: a failure names its call, and each has its own time (a few hundred
  // requests, some hashing a password), however many calls the API grows to.
  for (const call of calls) {
    it(`${call.method} ${call.path} answers each hostile value in each field with a 4xx or handled envelope, never a 5xx`, async () => {
      for (const value of hostileValues) {
        for (const field of call.fields.length ? call.fields : ['anything']) {
          const headers = { 'x-user-token': token, ...withAdmin(call.path) };
          const what = `${call.method} ${call.path} ${field}=${asQuery(value).slice(0, 40)}`;
          if (call.method === 'GET') {
            const query = new URLSearchParams({ [field]: asQuery(value).slice(0, 4000) });
            expectEnvelope(await send('GET', `${call.path}?${query}`, headers), what);
          } else {
            const body = JSON.stringify({ [field]: value });
            const answer = await send(call.method, call.path, { ...headers, 'content-type': 'application/json', 'idempotency-key': 'fuzz-key-0001' }, body.length > 60_000 ? body.slice(0, 60_000) : body);
            if (call.path === '/api/webhook/payment/stripe' || answer.status === 413) expect(answer.status, what).toBeLessThan(500);
            else expectEnvelope(answer, what);
          }
        }
      }
    }, 120_000);
  }

  it('answers bodies of every wrong shape and encoding with a 4xx envelope', async () => {
    const bodies: { type: string; body: Buffer | string; encoding?: string }[] = [
      { type: 'application/json', body: '{"email": ' },
      { type: 'application/json', body: Buffer.from([0xc3, 0x28, 0xff, 0xfe]) },
      { type: 'application/json', body: '[' .repeat(5000) },
      { type: 'application/json', body: 'garbage', encoding: 'gzip' },
      { type: 'application/json', body: 'garbage', encoding: 'br' },
      { type: 'application/json', body: '{}', encoding: 'x-unknown' },
      { type: 'application/json; charset=utf-7', body: '{}' },
      { type: 'text/plain', body: 'hello' },
      { type: 'application/x-www-form-urlencoded', body: 'a=1&b=2' },
      { type: 'multipart/form-data; boundary=x', body: '--x\r\n\r\n--x--' },
    ];
    for (const call of calls.filter((entry) => entry.method !== 'GET')) {
      for (const { type, body, encoding } of bodies) {
        const headers: Record<string, string> = { 'x-user-token': token, 'content-type': type };
        if (encoding) headers['content-encoding'] = encoding;
        const answer = await send(call.method, call.path, headers, body);
        const what = `${call.method} ${call.path} ${type} ${encoding ?? ''}`;
        expect(answer.status, what).toBeLessThan(500);
        if (call.path !== '/api/webhook/payment/stripe') expectEnvelope(answer, what);
      }
    }
  }, 120_000);

  it('answers the pixel with a PNG, and /media with no 5xx, whatever the query or path', async () => {
    for (const value of hostileValues) {
      const pixel = await send('GET', `/api/statics.png?${new URLSearchParams({ event: asQuery(value).slice(0, 4000), value: asQuery(value).slice(0, 100), userId: asQuery(value).slice(0, 100) })}`, {});
      expect(pixel.status).toBe(200);
      expect(pixel.type).toBe('image/png');
    }
    const pixelWithBody = await send('GET', '/api/statics.png?event=x', { 'content-type': 'application/json' }, '{"broken": ');
    expect(pixelWithBody.type).toBe('image/png');
    for (const path of ['/media/%00', '/media/g/x/%2e%2e/%2e%2e/etc/passwd', '/media/public/..%2f..%2fsecrets', '/media/public/covers/%ff', `/media/g/${'a'.repeat(5000)}/x`, '/media/g//', '/media/public/']) {
      const answer = await send('GET', path, { range: 'bytes=999999999-1' });
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.text, path).not.toContain('root:');
    }
  });

  it('is still alive and serving afterwards', async () => {
    expect((await send('GET', '/healthz', {})).status).toBe(200);
    expect((await site.call('GET', '/api/user', { token })).code).toBe(200);
  });
});
