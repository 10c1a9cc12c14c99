import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { answerCacheable, createLogger, forwardTo, noneMatchHolds, PUBLIC_READ } from '../src/index.ts';
import { freePort } from '../src/testing/index.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

describe('the gateway forwarding to a service running apart', () => {
  it('logs a call it could not deliver by its path only: no OAuth code, state or token of its query', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', 'proxy-test', { write: (line: string) => void lines.push(line) });
    const app = express().use(forwardTo(`http://127.0.0.1:${await freePort()}`, 'internal-token-0123456789', logger));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const query = 'code=4%2F0AbCdEf-provider-code&state=sTaTe-0123456789&reset=reset-token-0123&token=ref-1';
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/user/oauth/google/callback?${query}`);
      expect(answer.status).toBe(503);
      const unreachable = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'service unreachable');
      expect(unreachable).toMatchObject({ path: '/api/user/oauth/google/callback' });
      expect(lines.join('\n')).not.toMatch(/\?|code=|state=|provider-code|sTaTe-0123456789|reset-token-0123|ref-1/);
    } finally {
      server.close();
    }
  });
});

describe('a cacheable read through the gateway', () => {
  it('keeps its ETag and Cache-Control, and a matching If-None-Match reaches the service and comes back 304', async () => {
    const logger = createLogger('warn', 'proxy-test', { write: () => undefined });
    const service = express().get('/api/homepage', (req, res) => answerCacheable(req, res, { sections: [] }, PUBLIC_READ));
    const serviceServer = service.listen(0, '127.0.0.1');
    await once(serviceServer, 'listening');
    const gateway = express().use(forwardTo(`http://127.0.0.1:${(serviceServer.address() as AddressInfo).port}`, 'internal-token-0123456789', logger));
    const gatewayServer = gateway.listen(0, '127.0.0.1');
    await once(gatewayServer, 'listening');
    try {
      const url = `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}/api/homepage`;
      const first = await fetch(url);
      const tag = first.headers.get('etag');
      expect(tag).toMatch(/^"[\w-]+"$/);
      expect(first.headers.get('cache-control')).toBe(PUBLIC_READ);
      expect(await first.json()).toEqual({ code: 200, message: 'ok', data: { sections: [] } });
      const again = await fetch(url, { headers: { 'if-none-match': tag! } });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(tag);
      expect(await again.text()).toBe('');
    } finally {
      gatewayServer.close();
      serviceServer.close();
    }
  });
});

describe('If-None-Match', () => {
  it('compares weakly, as RFC 9110 says for GET: W/ on either side, lists and * match', () => {
    expect(noneMatchHolds('"abc"', '"abc"')).toBe(true);
    expect(noneMatchHolds('W/"abc"', '"abc"')).toBe(true);
    expect(noneMatchHolds('"x", W/"abc"', '"abc"')).toBe(true);
    expect(noneMatchHolds('*', '"abc"')).toBe(true);
    expect(noneMatchHolds('"abd"', '"abc"')).toBe(false);
    expect(noneMatchHolds(undefined, '"abc"')).toBe(false);
  });
});
