import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { jsonBody } from '../src/http/express-request.ts';
import { apiMethodGuard } from '../src/http/input-guard.ts';
import { createLogger, forwardTo } from '../src/index.ts';
import { eventually } from '../src/testing/index.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const listen = async (app: express.Express) => {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

// The gateway's order in front of a forwarded call (gateway-app.ts): the method guard, the JSON
// parser, then the forwarder to the service running apart.
describe('a resumable (tus) upload through the gateway to a catalog running apart', () => {
  it('passes tus headers both ways, lets HEAD through, and streams a PATCH as it comes, however large', async () => {
    let received = 0;
    const seen: http.IncomingHttpHeaders[] = [];
    const service = express().all('/api/admin/uploads/:id', (req, res) => {
      seen.push(req.headers);
      const answer = () => res.status(req.method === 'HEAD' ? 200 : 204).set({ 'tus-resumable': '1.0.0', 'upload-offset': String(received), 'upload-expires': 'Sat, 28 Nov 2026 00:00:00 GMT' }).end();
      if (req.method !== 'PATCH') return answer();
      req.on('data', (chunk: Buffer) => (received += chunk.length));
      req.on('end', answer);
    });
    const upstream = await listen(service);
    const logger = createLogger('warn', 'proxy-test', { write: () => undefined });
    const gateway = express().use('/api', apiMethodGuard).use('/api', jsonBody()).use(forwardTo(upstream.url, 'internal-token-0123456789', logger));
    const front = await listen(gateway);
    try {
      const head = await fetch(`${front.url}/api/admin/uploads/abc`, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
      expect(head.status).toBe(200);
      expect(head.headers.get('upload-offset')).toBe('0');
      expect(head.headers.get('tus-resumable')).toBe('1.0.0');
      // Still refused elsewhere under /api.
      expect((await fetch(`${front.url}/api/user`, { method: 'HEAD' })).status).toBe(405);

      // A 24 MB PATCH: its first half reaches the service before the second leaves the client.
      const half = Buffer.alloc(12 * 1024 ** 2, 7);
      const patch = http.request(`${front.url}/api/admin/uploads/abc`, {
        method: 'PATCH',
        headers: { 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream', 'content-length': String(2 * half.length) },
      });
      const answered = once(patch, 'response') as Promise<[http.IncomingMessage]>;
      patch.write(half);
      await eventually(() => received === half.length, 30_000, 'the first half at the service');
      patch.end(half);
      const [answer] = await answered;
      answer.resume();
      expect(answer.statusCode).toBe(204);
      expect(answer.headers['upload-offset']).toBe(String(2 * half.length));
      expect(answer.headers['upload-expires']).toBe('Sat, 28 Nov 2026 00:00:00 GMT');
      expect(seen.at(-1)).toMatchObject({ 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' });
    } finally {
      front.server.close();
      upstream.server.close();
    }
  });
});
