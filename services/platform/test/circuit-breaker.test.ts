import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient, ServiceUnavailable } from '../src/index.ts';
import { CircuitBreaker } from '../src/http/circuit-breaker.ts';
import { freePort } from '../src/testing/index.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

// A downstream service played by node:http: it answers as told, counting the requests it got.
let server: http.Server | null = null;
afterEach(() => void server?.close());

async function downstream(answer: (count: number) => { status: number; type: string; body: string }) {
  let count = 0;
  server = http.createServer((_req, res) => {
    const { status, type, body } = answer(++count);
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => count };
}
const envelope = (code: number, data: unknown = null, message = 'ok') => ({ status: code === 200 ? 200 : code, type: 'application/json', body: JSON.stringify({ code, message, data }) });
const failureOf = (call: Promise<unknown>) => call.then(() => null, (error: unknown) => error);

describe('calls between services', () => {
  it('tries a GET again when the service answers a proxy error, and succeeds once it answers', async () => {
    const service = await downstream((count) => (count < 3 ? { status: 502, type: 'text/html', body: '<h1>Bad gateway</h1>' } : envelope(200, { n: 1 })));
    const client = createServiceClient(service.url, 'internal-token-0123456789', { breaker: new CircuitBreaker('catalog') });
    expect(await client.get('/internal/x')).toEqual({ n: 1 });
    expect(service.requests()).toBe(3);
  });

  it('does not repeat a POST, and answers 503 naming the service when it is unreachable', async () => {
    const client = createServiceClient(`http://127.0.0.1:${await freePort()}`, 'internal-token-0123456789', { breaker: new CircuitBreaker('unlock') });
    const error = await failureOf(client.post('/internal/unlock/credit', {}));
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect(error).toMatchObject({ code: 503, message: 'The unlock service is unavailable right now. Please try again shortly.' });
  });

  it("takes a service's own 503 envelope as its answer: passed on, not retried, the circuit kept closed", async () => {
    const service = await downstream(() => envelope(503, null, 'Your account cannot be checked right now. Please try again shortly.'));
    const breaker = new CircuitBreaker('payment', { failuresToOpen: 1, openMs: 60_000 });
    const client = createServiceClient(service.url, 'internal-token-0123456789', { breaker });
    expect(await failureOf(client.get('/internal/y'))).toMatchObject({ code: 503, message: 'Your account cannot be checked right now. Please try again shortly.' });
    expect(service.requests()).toBe(1);
    expect(breaker.state).toBe('closed');
  });
});

describe('a circuit breaker', () => {
  it('opens after failures in a row, refuses while open, lets one trial through after the wait, and closes on its success', async () => {
    let now = 0;
    const breaker = new CircuitBreaker('user', { failuresToOpen: 3, openMs: 5_000 }, () => now);
    breaker.failed();
    breaker.failed();
    breaker.succeeded();
    breaker.failed();
    breaker.failed();
    expect(breaker.allow()).toBe(true);
    breaker.failed();
    expect(breaker.state).toBe('open');
    expect(breaker.allow()).toBe(false);
    now = 5_000;
    expect(breaker.state).toBe('half-open');
    expect(breaker.allow()).toBe(true);
    expect(breaker.allow()).toBe(false);
    breaker.failed();
    expect(breaker.state).toBe('open');
    now = 10_000;
    expect(breaker.allow()).toBe(true);
    breaker.succeeded();
    expect(breaker.state).toBe('closed');
    expect(breaker.allow()).toBe(true);
  });

  it('stops calling a service whose circuit is open: the calls fail at once without reaching it', async () => {
    const service = await downstream(() => ({ status: 503, type: 'text/plain', body: 'upstream connect error' }));
    const client = createServiceClient(service.url, 'internal-token-0123456789', { breaker: new CircuitBreaker('analytics', { failuresToOpen: 2, openMs: 60_000 }), getTries: 1 });
    for (let i = 0; i < 5; i++) expect(await failureOf(client.get('/internal/z'))).toMatchObject({ code: 503 });
    expect(service.requests()).toBe(2);
  });
});
