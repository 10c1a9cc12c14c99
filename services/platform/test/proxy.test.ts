import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createLogger, forwardTo } from '../src/index.ts';
import { freePort } from '../src/testing/index.ts';

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
