import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { Options } from 'express-rate-limit';
import { SharedCountStore } from '../src/http/shared-count-store.ts';
import { freePort, realRedisUrl } from '../src/testing/index.ts';

const windowMs = 60_000;
// Flushed by the test alone (no timer within a minute), so what each replica knows does not depend on
// how fast the machine runs the test.
const storeOn = (redis: Redis, prefix: string, errors: unknown[] = []) => {
  const store = new SharedCountStore(redis, prefix, (error) => void errors.push(error), windowMs);
  store.init({ windowMs } as Options);
  return store;
};
const hitsOf = async (store: SharedCountStore, key: string) => (await store.increment(key)).totalHits;

describe.skipIf(!realRedisUrl)('the history limit shared by gateway replicas through Redis', () => {
  const redis = new Redis(realRedisUrl!);
  afterAll(() => redis.quit());

  it("counts a client's first call with Redis, its next ones in the process, and learns every replica's as it adds its own", async () => {
    const prefix = `test-shared-count-${process.pid}-${Date.now()}:`;
    const [one, two] = [storeOn(redis, prefix), storeOn(redis, prefix)];
    expect(await hitsOf(one, '203.0.113.1')).toBe(1);
    expect(Number(await redis.get(`${prefix}203.0.113.1`))).toBe(1);
    expect([await hitsOf(one, '203.0.113.1'), await hitsOf(one, '203.0.113.1')]).toEqual([2, 3]);
    expect(Number(await redis.get(`${prefix}203.0.113.1`))).toBe(1);
    await one.flush();
    expect(Number(await redis.get(`${prefix}203.0.113.1`))).toBe(3);
    // The other replica's first call from that client asks Redis, and knows the three before it.
    expect(await hitsOf(two, '203.0.113.1')).toBe(4);
    expect(await hitsOf(two, '203.0.113.1')).toBe(5);
    // The first replica learns of the other's calls when it next adds its own.
    expect(await hitsOf(one, '203.0.113.1')).toBe(4);
    await one.flush();
    expect(await hitsOf(one, '203.0.113.1')).toBe(6);
    // Another client's count is its own, and the window closes when Redis's key does.
    expect(await hitsOf(two, '203.0.113.2')).toBe(1);
    const left = await redis.pttl(`${prefix}203.0.113.1`);
    expect(left).toBeGreaterThan(windowMs - 30_000);
    expect(left).toBeLessThanOrEqual(windowMs);
    await Promise.all([one.shutdown(), two.shutdown()]);
    expect(Number(await redis.get(`${prefix}203.0.113.1`))).toBe(7);
    expect(Number(await redis.get(`${prefix}203.0.113.2`))).toBe(1);
  });

  it('gives back what a call took (decrement) and forgets a client (resetKey) in Redis too', async () => {
    const prefix = `test-shared-count-reset-${process.pid}-${Date.now()}:`;
    const store = storeOn(redis, prefix);
    await hitsOf(store, 'client');
    await hitsOf(store, 'client');
    store.decrement('client');
    await store.flush();
    expect(Number(await redis.get(`${prefix}client`))).toBe(1);
    await store.resetKey('client');
    expect(await redis.get(`${prefix}client`)).toBeNull();
    expect(await hitsOf(store, 'client')).toBe(1);
    await store.shutdown();
  });
});

describe('the history limit while Redis is away', () => {
  it('goes on counting in the process, and says so once', async () => {
    const unreachable = new Redis({ port: await freePort(), host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const errors: unknown[] = [];
    const store = storeOn(unreachable, 'test-away:', errors);
    try {
      expect([await hitsOf(store, 'client'), await hitsOf(store, 'client')]).toEqual([1, 2]);
      await store.flush();
      await store.flush();
      expect(errors).toHaveLength(1);
      // Nothing counted was lost: the process still refuses on its own count.
      expect(await hitsOf(store, 'client')).toBe(3);
    } finally {
      await store.shutdown();
      unreachable.disconnect();
    }
  });
});
