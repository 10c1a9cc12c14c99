import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleHandler } from '../src/storefront/console.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

// The operators' console's page (storefront/admin.html as built): /admin and everything under it.
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-console-'));
const page = '<!doctype html><html><head><script type="module" src="/assets/admin-1.js"></script></head><body><div id="admin"></div></body></html>';
let base: string;
let server: ReturnType<express.Express['listen']>;

beforeAll(async () => {
  const app = express();
  app.use(consoleHandler(dist));
  app.use((_req, res) => void res.status(418).send('the next handler'));
  await new Promise<void>((resolve) => (server = app.listen(0, '127.0.0.1', () => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

const html = (address: string) => fetch(`${base}${address}`, { headers: { accept: 'text/html' } });

describe('the console page', () => {
  it('answers 503 until the console is built, then admin.html for /admin and every address under it, never cached', async () => {
    expect((await html('/admin')).status).toBe(503);
    fs.writeFileSync(path.join(dist, 'admin.html'), page);
    for (const address of ['/admin', '/admin/', '/admin/orders?email=a%40b.c', '/admin/users/u1']) {
      const response = await html(address);
      expect(response.status, address).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('x-robots-tag')).toBe('noindex');
      expect(await response.text()).toBe(page);
    }
  });

  it('leaves every other address, and calls that do not take HTML, to the handlers after it', async () => {
    for (const address of ['/', '/administrator', '/videos/admin']) expect((await html(address)).status, address).toBe(418);
    expect((await fetch(`${base}/admin`, { headers: { accept: 'application/json' } })).status).toBe(418);
    expect((await fetch(`${base}/admin`, { method: 'POST', headers: { accept: 'text/html' } })).status).toBe(418);
  });
});
