import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import express, { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineModule } from '@cliffhanger/platform';
import { eventually, startSite, tempDir, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';
import { storefrontHandler } from '../src/storefront/index.ts';

interface Envelope {
  header: { trace?: Record<string, string>; event_id?: string };
  items: { type: string; payload: any }[];
}

/** Sentry's ingest, standing in at the DSN's host: it keeps the envelopes the SDK posts. */
const envelopes: Envelope[] = [];
const paths: string[] = [];
const ingest = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    paths.push(req.url!.split('?')[0]!);
    const raw = Buffer.concat(chunks);
    const [header, ...rest] = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString().split('\n').filter(Boolean);
    const items: Envelope['items'] = [];
    for (let at = 0; at + 1 < rest.length; at += 2) items.push({ type: JSON.parse(rest[at]!).type, payload: JSON.parse(rest[at + 1]!) });
    envelopes.push({ header: JSON.parse(header!), items });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

/** A module whose one call crashes the way a broken dependency would. */
const crashing = defineModule<never>({
  name: 'crashing',
  publicPrefixes: ['/api/crash'],
  init: () => ({
    routes: [
      Router().get('/api/crash', () => {
        throw new Error('database on fire');
      }),
    ],
  }),
});

const dist = tempDir('storefront-dist-');
fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><html><head><title>Cliffhanger</title></head><body><div id="app"></div></body></html>');

let site: Site;
let dsn: string;
/** A call as a browser on `host` makes it (the Host header names the site's public name). */
function callAs(host: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; requestId: string }> {
  const { port } = new URL(site.url);
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers: { host: `${host}:${port}`, ...headers } }, (answer) => {
        answer.resume();
        answer.on('end', () => resolve({ status: answer.statusCode!, requestId: String(answer.headers['x-request-id']) }));
      })
      .on('error', reject);
  });
}

const items = (type: string) => envelopes.flatMap((envelope) => envelope.items.filter((item) => item.type === type).map((item) => ({ header: envelope.header, payload: item.payload })));

beforeAll(async () => {
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  dsn = `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`;
  // No PUBLIC_URL: the environment is the one of the host each request came to.
  site = await startSite({ modules: [...registry.modules, crashing], env: { DEMO: '0', SENTRY_DSN: dsn }, pages: storefrontHandler(dist, { sentryDsn: dsn }) });
});
afterAll(async () => {
  await site?.close();
  ingest.close();
});

describe('Sentry in the browser, with SENTRY_DSN', () => {
  it("writes the DSN into the storefront's page and lets the page reach the DSN's host", async () => {
    const response = await fetch(`${site.url}/`, { headers: { accept: 'text/html' } });
    expect(await response.text()).toContain(`<meta name="sentry-dsn" content="${dsn}" /></head>`);
    const connect = response.headers.get('content-security-policy')!.split(';').find((directive) => directive.trim().startsWith('connect-src'));
    expect(connect!.trim().split(/\s+/)).toEqual(['connect-src', "'self'", new URL(dsn).origin]);
  });

  it('writes nothing into the page of a site without a DSN', async () => {
    const bare = express().use(storefrontHandler(dist)).listen(0, '127.0.0.1');
    await once(bare, 'listening');
    try {
      const page = await fetch(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/`, { headers: { accept: 'text/html' } }).then((r) => r.text());
      expect(page).toContain('<title>Cliffhanger</title>');
      expect(page).not.toContain('sentry');
    } finally {
      bare.close();
    }
  });
});

describe('Sentry on the server, with SENTRY_DSN', () => {
  it('reports a crash with its request, filed under sandbox on a .cc host and production elsewhere', async () => {
    const sandbox = await callAs('shorts.example.cc', '/api/crash');
    const production = await callAs('127.0.0.1', '/api/crash');
    expect([sandbox.status, production.status]).toEqual([500, 500]);

    const events = await eventually(() => (items('event').length >= 2 ? items('event') : null), 10_000, 'two error events at the stand-in');
    expect(paths).toContain('/api/1/envelope/');
    const { port } = new URL(site.url);
    const byRequest = (requestId: string) => events.find((event) => event.payload.tags?.request_id === requestId)!.payload;
    expect(byRequest(sandbox.requestId)).toMatchObject({
      environment: 'sandbox',
      exception: { values: [{ type: 'Error', value: 'database on fire' }] },
      request: { method: 'GET', url: `http://shorts.example.cc:${port}/api/crash` },
    });
    expect(byRequest(production.requestId)).toMatchObject({ environment: 'production', request: { url: `http://127.0.0.1:${port}/api/crash` } });
  });

  it('keeps three traces in ten, each sent with its sample rate and environment in the trace header', async () => {
    const calls = 60;
    for (let n = 0; n < calls; n++) await callAs('shorts.example.cc', '/api/homepage', { traceparent: `00-${n.toString(16).padStart(32, 'f')}-00f067aa0ba902b7-00` });
    // Binomial(60, 0.3): 18 on average; fewer than 5 or more than 35 is under one chance in a million.
    const transactions = await eventually(
      () => {
        const sent = items('transaction').filter((item) => item.payload.transaction === 'GET /api/homepage');
        return sent.length >= 5 ? sent : null;
      },
      10_000,
      'sampled transactions',
    );
    expect(transactions.length).toBeLessThanOrEqual(35);
    for (const { header, payload } of transactions) {
      expect(header.trace).toMatchObject({ sample_rate: '0.3', environment: 'sandbox', public_key: 'publickey', trace_id: payload.contexts.trace.trace_id });
      expect(payload.environment).toBe('sandbox');
      // The browser's trace id is the transaction's.
      expect(payload.contexts.trace.trace_id).toMatch(/^f+[0-9a-f]{1,2}$/);
    }
  });
});
