import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openPostgres, platformMigrations, queryRows, type Edge, type Platform } from '@cliffhanger/platform';
import { eventually, freePort, openTestPlatform, outboxEvents, realDatabaseUrl, stopPlatform } from '@cliffhanger/platform/testing';
import { createPixelEdge, fullBatchFor, PIXEL_PNG } from '../src/pixel.ts';
import { createHitEnricher } from '../src/pixel-enricher.ts';
import { arrivedHit, hitStore, pruneSalts, SALT_MARGIN_MS, saltOf } from '../src/pixel-hits.ts';

// The pixel edge on its own HTTP server and a real database (PGlite, or PostgreSQL in npm test's
// second pass): what it answers, what it stores, what its stored batches become, and what it does
// when the database is away.
let platform: Platform;
beforeAll(async () => {
  platform = await openTestPlatform({ RATE_LIMIT_PIXEL_PER_MINUTE: '100000', PIXEL_BUFFER_HITS: '2000' });
  await migrate(platform.database, 'platform', platformMigrations);
});
afterAll(() => stopPlatform(platform));

const tokens: Record<string, string> = { 'token-of-ann': '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f' };
const authenticate = async (token: string | undefined) => (token && tokens[token] ? { userId: tokens[token], role: 'viewer' as const } : null);

async function serve(edge: Edge) {
  const server = http.createServer((req, res) => edge.handle(req, res)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${edge.path}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Batches the edge stored that have not become events yet. */
const storedBatches = async () => (await queryRows<{ n: number }>(platform.database.db, sql`select count(*)::int as n from platform.edge_batches`))[0]!.n;

/** Starts a test from no hits at all. */
const forgetHits = async () => {
  await platform.database.db.execute(sql`delete from platform.edge_batches`);
  await platform.database.db.execute(sql`delete from platform.outbox`);
};

/** The stored batches' text, as the gateway wrote it. */
const storedText = async () => (await queryRows<{ body: string }>(platform.database.db, sql`select body from platform.edge_batches order by id`)).map((row) => row.body).join('\n');

/**
 * The statics.hit events the stored batches became (the analytics module's enricher, run here at
 * once rather than at its poll), as the buses hand them on: an outbox row per batch.
 */
const hits = async () => {
  await createHitEnricher(platform, 60_000).run();
  return (await outboxEvents(platform.database.db, 'statics.hit')).map((event) => ({
    user_id: event.userId,
    occurred_at: event.time,
    attribution: event.attribution,
    data: event.data as Record<string, any>,
  }));
};

async function expectPng(response: Response) {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(await response.arrayBuffer())).toEqual(PIXEL_PNG);
}

/** Queries a hostile client might send: broken escapes, control characters, huge and repeated fields. */
function fuzzedQuery(seed: number): string {
  let state = seed * 2654435761;
  const next = () => (state = (state * 1103515245 + 12345) >>> 0);
  const pieces = ['event', 'value', 'currency', 'userId', 'fbclid', 'path', '%', '%E0%A4%A', '%00', '%ZZ', '[]', '=', '&', '\u0001', 'é', '😀', 'x'.repeat(3000), '1e309', '-1', 'NaN', '__proto__', 'constructor'];
  let query = '';
  const length = next() % 12;
  for (let i = 0; i < length; i++) query += encodeURIComponent(pieces[next() % pieces.length]!).replace(/%25/g, next() % 2 ? '%' : '%25') + (next() % 3 ? '=' : '&');
  return query;
}

describe('statics.png at the edge', () => {
  it('keeps a hit cleaned and bounded, with its attribution, user agent and a hashed address, never the raw one', async () => {
    await forgetHits();
    const edge = createPixelEdge({ platform, authenticate, flushMs: 10 });
    const site = await serve(edge);
    const before = Date.now();
    await expectPng(
      await fetch(`${site.url}?event=purchase&value=4.99&currency=EUR&token=ref-9&fbclid=fb-1&videoId=v1&campaign=spring&bad=a%00b&x%01=y&path=${'p'.repeat(500)}`, {
        headers: { 'user-agent': 'Mozilla/5.0 (test)' },
      }),
    );
    // Stored as it came, but for the address, which is never kept.
    await eventually(async () => (await storedBatches()) === 1, 10_000, 'the hit stored');
    expect(await storedText()).toContain('event=purchase&value=4.99');
    expect(await storedText()).not.toContain('127.0.0.1');
    const [hit] = await hits();
    expect(await storedBatches()).toBe(0);
    expect(hit!.attribution).toEqual({ referrerToken: 'ref-9', fbclid: 'fb-1', ttclid: null });
    expect(hit!.data).toMatchObject({ event: 'purchase', videoId: 'v1', value: { amount: 499, currency: 'EUR' }, params: { campaign: 'spring' }, userAgent: 'Mozilla/5.0 (test)' });
    expect(hit!.data.path).toHaveLength(200);
    expect(hit!.data.ipHash).toMatch(/^[\w-]{22}$/);
    expect(JSON.stringify(hit)).not.toContain('127.0.0.1');
    expect(JSON.stringify(hit!.data)).not.toContain('\\u0000');
    // The hit keeps the moment it arrived, not the moment its batch was written.
    expect(new Date(hit!.occurred_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    await site.close();
    await edge.stop();
  });

  it("believes no query's userId: the hit belongs to the user of the token it carries, or to nobody", async () => {
    await forgetHits();
    const edge = createPixelEdge({ platform, authenticate, flushMs: 10 });
    const site = await serve(edge);
    const someoneElse = '0b9b4c1e-2f4a-4c8e-9d7a-3f1e2d4c5b6a';
    await expectPng(await fetch(`${site.url}?event=claimed&userId=${someoneElse}`));
    await expectPng(await fetch(`${site.url}?event=spoofed&userId=${someoneElse}`, { headers: { 'x-user-token': 'token-of-ann' } }));
    await expectPng(await fetch(`${site.url}?event=unknown-token&userId=${someoneElse}`, { headers: { 'x-user-token': 'nobody-has-this' } }));
    await eventually(async () => (await storedBatches()) > 0 && (await storedText()).includes('unknown-token'), 10_000, 'the hits stored');
    // A session token is never stored: the user it belongs to is.
    expect(await storedText()).not.toMatch(/token-of-ann|nobody-has-this/);
    const recorded = await hits();
    expect(Object.fromEntries(recorded.map((hit) => [hit.data.event, hit.user_id]))).toEqual({ claimed: null, spoofed: tokens['token-of-ann'], 'unknown-token': null });
    await site.close();
    await edge.stop();
  });

  it('answers HEAD without a body and refuses nothing', async () => {
    const edge = createPixelEdge({ platform, authenticate });
    const site = await serve(edge);
    const head = await fetch(site.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PIXEL_PNG.length));
    await site.close();
    await edge.stop();
  });

  it('answers a valid PNG to 1,000 fuzzed queries while the database is unreachable, holds at most its buffer, and says what it lost at shutdown', async () => {
    const unreachable = await openPostgres(`postgres://postgres@127.0.0.1:${await freePort()}/nowhere`, 2);
    const edge = createPixelEdge({ platform: { ...platform, database: unreachable }, authenticate, flushMs: 5 });
    const site = await serve(edge);
    for (let i = 0; i < 1000; i++) {
      const response = await fetch(`${site.url}?event=e${i}&${fuzzedQuery(i)}`);
      expect(response.status, fuzzedQuery(i)).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()), fuzzedQuery(i)).toEqual(PIXEL_PNG);
    }
    for (let i = 0; i < 1200; i++) await fetch(`${site.url}?event=more`);
    const metrics = await platform.metrics.registry.metrics();
    expect(metrics).toMatch(/pixel_buffer_hits\{[^}]*\} 2000/);
    expect(metrics).toMatch(/pixel_hits_total\{outcome="dropped"[^}]*\} (\d+)/);
    await site.close();
    await edge.stop();
    expect(await platform.metrics.registry.metrics()).toMatch(/pixel_buffer_hits\{[^}]*\} 0/);
    await unreachable.close();
  }, 120_000);

  it('writes what it holds when it stops', async () => {
    await forgetHits();
    const edge = createPixelEdge({ platform, authenticate, flushMs: 60_000 });
    const site = await serve(edge);
    for (let i = 0; i < 30; i++) await fetch(`${site.url}?event=late-${i}`);
    expect(await hits()).toHaveLength(0);
    await site.close();
    await edge.stop();
    expect(await hits()).toHaveLength(30);
  });

  it('writes a full batch at once, without waiting for the flush, as one stored batch that becomes one outbox row', async () => {
    await forgetHits();
    const many = { ...platform, config: { ...platform.config, RATE_LIMIT_PIXEL_PER_MINUTE: 10_000 } };
    const edge = createPixelEdge({ platform: many, authenticate, flushMs: 600_000 });
    const site = await serve(edge);
    // 500 on PGlite, written in this thread; 2,000 on PostgreSQL, through the writer thread.
    const full = fullBatchFor(platform.database);
    for (let i = 0; i < full - 1; i++) await fetch(`${site.url}?event=busy-${i}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await hits()).toHaveLength(0);
    await fetch(`${site.url}?event=busy-${full - 1}`);
    await eventually(async () => (await storedBatches()) === 1, 30_000, 'the full batch');
    const written = await hits();
    expect(written.map((hit) => hit.data.event)).toEqual(Array.from({ length: full }, (_, i) => `busy-${i}`));
    const rows = await queryRows<{ n: number }>(platform.database.db, sql`select count(*)::int as n from platform.outbox where type = 'statics.hit'`);
    expect(rows).toEqual([{ n: 1 }]);
    await site.close();
    await edge.stop();
  }, 60_000);

  it('counts hits per address and minute: past the limit it answers the PNG and keeps nothing', async () => {
    await forgetHits();
    const limited = { ...platform, config: { ...platform.config, RATE_LIMIT_PIXEL_PER_MINUTE: 5 } };
    const edge = createPixelEdge({ platform: limited, authenticate, flushMs: 10 });
    const site = await serve(edge);
    for (let i = 0; i < 8; i++) await expectPng(await fetch(`${site.url}?event=burst`));
    await site.close();
    await edge.stop();
    expect(await hits()).toHaveLength(5);
  });
});

describe('the stored hits, where the analytics module runs', () => {
  // Today's UTC day: a day over has no salt, and its hits no address hash.
  const DAY = 86_400_000;
  const today = Date.now() - (Date.now() % DAY);
  const noon = today + DAY / 2;
  const arrived = (event: string, address = '203.0.113.9') =>
    arrivedHit({ token: 'token-of-ann', at: noon, address, query: `event=${event}&lang=es`, userAgent: 'Mozilla/5.0', referrerToken: '', fbclid: '', ttclid: '', traceparent: '' });
  const users = new Map([['token-of-ann', tokens['token-of-ann']!]]);

  it('become statics.hit events once and in order, an outbox row a batch, however many enrichers take them', async () => {
    await forgetHits();
    const store = hitStore();
    for (let batch = 0; batch < 6; batch++) await store.write(platform.database, [0, 1, 2].map((i) => arrived(`b${batch}-${i}`)), users);
    expect(await storedBatches()).toBe(6);
    // Two processes' enrichers at once: one takes while the other finds the lock held.
    const [first, second] = [createHitEnricher(platform, 60_000), createHitEnricher(platform, 60_000)];
    await Promise.all([first.run(), second.run()]);
    await second.run();
    expect(await storedBatches()).toBe(0);
    const events = await outboxEvents(platform.database.db, 'statics.hit');
    expect(events.map((event) => event.data.event)).toEqual(Array.from({ length: 18 }, (_, i) => `b${Math.floor(i / 3)}-${i % 3}`));
    expect(new Set(events.map((event) => event.id)).size).toBe(18);
    expect(events[0]).toMatchObject({ userId: tokens['token-of-ann'], time: new Date(noon).toISOString(), data: { params: { lang: 'es' }, ipHash: expect.stringMatching(/^[\w-]{22}$/) } });
    const rows = await queryRows<{ n: number }>(platform.database.db, sql`select count(*)::int as n from platform.outbox where type = 'statics.hit'`);
    expect(rows).toEqual([{ n: 6 }]);
  });

  it("hash an address with its UTC day's salt: the same within the day, differently the next", async () => {
    await forgetHits();
    const store = hitStore();
    const at = (ms: number, address: string) => arrivedHit({ token: '', at: ms, address, query: 'event=seen', userAgent: '', referrerToken: '', fbclid: '', ttclid: '', traceparent: '' });
    await store.write(platform.database, [at(today + 1_000, '198.51.100.1'), at(today + DAY - 1_000, '198.51.100.1'), at(today + DAY, '198.51.100.1'), at(noon, '198.51.100.2')], new Map());
    // Another process (a second gateway) finds the same salt: the same address hashes alike there.
    await hitStore().write(platform.database, [at(noon, '198.51.100.1')], new Map());
    await createHitEnricher(platform, 60_000).run();
    const hashes = (await outboxEvents(platform.database.db, 'statics.hit')).map((event) => event.data.ipHash);
    expect(hashes[0]).toMatch(/^[\w-]{22}$/);
    expect(hashes[0]).toBe(hashes[1]);
    expect(hashes[4]).toBe(hashes[0]);
    expect(new Set(hashes).size).toBe(3);
  });

  it("destroy a day's salt once the day is over, and make none for a day over", async () => {
    const day = new Date(today).toISOString().slice(0, 10);
    const salt = await saltOf(platform.database, day);
    expect(salt).toHaveLength(32);
    expect(await saltOf(platform.database, day)).toEqual(salt);
    // Within the margin after the day the salt stays; past it, it is gone and never made again.
    expect(await pruneSalts(platform.database, today + DAY + SALT_MARGIN_MS / 2)).toBe(0);
    const later = today + DAY + SALT_MARGIN_MS + 1_000;
    expect(await pruneSalts(platform.database, later)).toBeGreaterThanOrEqual(1);
    const left = await queryRows<{ n: number }>(platform.database.db, sql`select count(*)::int as n from platform.edge_salts where day <= ${day}`);
    expect(left).toEqual([{ n: 0 }]);
    expect(await saltOf(platform.database, day, later)).toBeNull();
    // A hit of a day over, written late, keeps no address hash at all.
    await forgetHits();
    const late = arrivedHit({ token: '', at: today - 2 * DAY, address: '198.51.100.1', query: 'event=late', userAgent: '', referrerToken: '', fbclid: '', ttclid: '', traceparent: '' });
    await hitStore().write(platform.database, [late], new Map());
    await createHitEnricher(platform, 60_000).run();
    expect((await outboxEvents(platform.database.db, 'statics.hit')).map((event) => event.data.ipHash)).toEqual(['']);
  });

  it('count a hit that names no event as ignored, and a batch of none writes no outbox row', async () => {
    await forgetHits();
    const ignored = async () => Number(/pixel_hits_total\{outcome="ignored"[^}]*\} (\d+)/.exec(await platform.metrics.registry.metrics())?.[1] ?? 0);
    const before = await ignored();
    const nameless = arrivedHit({ token: '', at: Date.now(), address: '203.0.113.9', query: 'value=1', userAgent: '', referrerToken: '', fbclid: '', ttclid: '', traceparent: '' });
    await hitStore().write(platform.database, [nameless, nameless], new Map());
    await hitStore().write(platform.database, [nameless, arrived('named')], users);
    await createHitEnricher(platform, 60_000).run();
    expect(await storedBatches()).toBe(0);
    expect((await outboxEvents(platform.database.db, 'statics.hit')).map((event) => event.data.event)).toEqual(['named']);
    expect(await ignored()).toBe(before + 3);
  });
});

// Only PostgreSQL has a connection to cut: a TCP relay in front of it goes away and comes back.
describe.skipIf(!realDatabaseUrl)('statics.png when PostgreSQL goes away and comes back (second pass)', () => {
  it('keeps answering, holds the hits, and writes them all once the database is back', async () => {
    await forgetHits();
    const target = new URL(realDatabaseUrl!);
    const sockets = new Set<net.Socket>();
    let up = false;
    const relay = net.createServer((client) => {
      if (!up) return void client.destroy();
      const server = net.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, server]) {
        sockets.add(socket);
        socket.on('error', () => {}).on('close', () => sockets.delete(socket));
      }
      client.pipe(server).pipe(client);
    });
    relay.listen(0, '127.0.0.1');
    await once(relay, 'listening');
    const relayed = new URL(realDatabaseUrl!);
    relayed.host = `127.0.0.1:${(relay.address() as AddressInfo).port}`;
    // The scratch database of this run, reached through the relay.
    const [scratch] = await queryRows<{ name: string }>(platform.database.db, sql`select current_database() as name`);
    relayed.pathname = `/${scratch!.name}`;
    const database = await openPostgres(relayed.toString(), 2);
    const edge = createPixelEdge({ platform: { ...platform, database }, authenticate, flushMs: 10 });
    const site = await serve(edge);
    for (let i = 0; i < 50; i++) await expectPng(await fetch(`${site.url}?event=while-down-${i}`));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await hits()).toHaveLength(0);
    up = true;
    const written = await eventually(async () => ((await hits()).length === 50 ? hits() : null), 90_000, 'the held hits to be written');
    expect(new Set(written.map((hit) => hit.data.event)).size).toBe(50);
    await site.close();
    await edge.stop();
    await database.close();
    for (const socket of sockets) socket.destroy();
    relay.close();
  }, 120_000);
});
