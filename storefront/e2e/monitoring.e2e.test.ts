import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, SiteExited } from '@cliffhanger/platform/testing';
import { CHROMIUM_ARGS, startSite, type RunningSite } from './harness';

// The site this suite starts has a Sentry DSN, whose host is a local stand-in of Sentry's ingest;
// Chromium reaches the site under a .cc name, so the browser's reports are the sandbox's.
const SANDBOX_HOST = 'shorts.example.cc';

interface Envelope {
  header: { trace?: Record<string, string> };
  items: { type: string; payload: any }[];
}

const envelopes: Envelope[] = [];
const ingest = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'POST' && req.url?.startsWith('/api/1/envelope/')) {
      const [header, ...rest] = Buffer.concat(chunks).toString().split('\n');
      const items: Envelope['items'] = [];
      // Items are a header line and a payload; a replay's payload is binary and stays unread.
      for (let at = 0; at + 1 < rest.length; at += 2) {
        const item = JSON.parse(rest[at]!) as { type: string };
        items.push({ type: item.type, payload: item.type === 'event' || item.type === 'transaction' ? JSON.parse(rest[at + 1]!) : null });
        if (item.type !== 'event' && item.type !== 'transaction') break;
      }
      envelopes.push({ header: JSON.parse(header!), items });
    }
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'application/json' }).end('{}');
  });
});

let site: RunningSite;
let browser: Browser;
let siteUrl: string;
const pageErrors: string[] = [];

const items = (type: string) => envelopes.flatMap((envelope) => envelope.items.filter((item) => item.type === type).map((item) => ({ header: envelope.header, payload: item.payload })));

async function openHome(): Promise<Page> {
  const page = await browser.newPage({ baseURL: siteUrl, locale: 'en-US' });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto('/');
  await page.locator('#app *').first().waitFor();
  return page;
}

describe.skipIf(Boolean(process.env.E2E_BASE_URL))('Sentry in the browser (a site this suite starts, with SENTRY_DSN)', () => {
  beforeAll(async () => {
    ingest.listen(0, '127.0.0.1');
    await once(ingest, 'listening');
    process.env.SENTRY_DSN = `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`;
    process.env.DEMO = '0';
    site = await startSite();
    siteUrl = site.baseUrl.replace('127.0.0.1', SANDBOX_HOST);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${SANDBOX_HOST} 127.0.0.1`] });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    ingest.close();
  });

  it('sends a page error to the DSN, filed under the sandbox, with tracing and replay on', async () => {
    const page = await openHome();
    // Sentry loads after the first render, on its own: wait until it reports a thrown error.
    await eventually(async () => {
      await page.evaluate(() => setTimeout(() => {
        throw new Error('e2e: a broken button');
      }));
      return items('event').find((item) => item.payload.exception?.values?.[0]?.value?.includes('e2e: a broken button'));
    }, { timeoutMs: 30_000, what: 'an error event at the stand-in', intervalMs: 1000, stopOn: SiteExited });
    const { header, payload } = items('event').find((item) => item.payload.exception?.values?.[0]?.value?.includes('e2e: a broken button'))!;
    expect(payload.environment).toBe('sandbox');
    expect(payload.request.url).toBe(`${siteUrl}/`);
    expect(header.trace).toMatchObject({ environment: 'sandbox', public_key: 'publickey' });
    expect(payload.sdk.integrations).toEqual(expect.arrayContaining(['BrowserTracing', 'Replay']));
    await page.close();
  });

  // Sentry draws one number in [0, 1) per trace (its sampleRand, from Math.random) and keeps the trace
  // when it is under the rate. Each page below draws only from one side of 0.3, so whether its page
  // load is kept is certain, and the page stays open until Sentry has said so (a page load ends a
  // second after the page's last activity; Sentry itself loads after the first render).
  const openDrawingFrom = async (low: number, high: number): Promise<Page> => {
    const page = await browser.newPage({ baseURL: siteUrl, locale: 'en-US' });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.addInitScript(
      ([low, high]) => {
        const random = Math.random;
        Math.random = () => low! + random() * (high! - low!);
      },
      [low, high],
    );
    await page.goto('/');
    return page;
  };

  it('keeps a page load whose draw is under 0.3 as a transaction, sent with its sample rate', async () => {
    const before = items('transaction').length;
    const page = await openDrawingFrom(0, 0.29);
    const transaction = await eventually(async () => items('transaction').slice(before).find((item) => item.payload.contexts?.trace?.op === 'pageload'), { timeoutMs: 60_000, what: 'the sampled page load', intervalMs: 250, stopOn: SiteExited });
    await page.close();
    expect(transaction.header.trace).toMatchObject({ sample_rate: '0.3', environment: 'sandbox', sampled: 'true' });
    expect(transaction.payload.environment).toBe('sandbox');
    expect(transaction.payload.request.url).toBe(`${siteUrl}/`);
  });

  it('drops a page load whose draw is 0.3 or over: its errors still go, marked unsampled', async () => {
    const before = items('transaction').length;
    const page = await openDrawingFrom(0.3, 1);
    const message = 'e2e: an error on an unsampled page';
    const event = await eventually(async () => {
      await page.evaluate((message) => setTimeout(() => {
        throw new Error(message);
      }), message);
      return items('event').find((item) => item.payload.exception?.values?.[0]?.value?.includes(message));
    }, { timeoutMs: 60_000, what: 'the unsampled page’s error', intervalMs: 500, stopOn: SiteExited });
    // The error was sent after the page load's trace had been decided: no transaction came of it.
    expect(event.header.trace).toMatchObject({ sample_rate: '0.3', sampled: 'false' });
    expect(items('transaction').slice(before).filter((item) => item.payload.contexts?.trace?.trace_id === event.header.trace?.trace_id)).toEqual([]);
    await page.close();
  });

  it('sends a new W3C traceparent on every API call, for the server to continue', async () => {
    const page = await browser.newPage({ baseURL: siteUrl, locale: 'en-US' });
    const calls: Request[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/') && !request.url().includes('/api/statics.png')) calls.push(request);
    });
    await page.goto('/');
    await page.locator('#app *').first().waitFor();
    await eventually(async () => (calls.length >= 2 ? true : undefined), { timeoutMs: 10_000, what: 'API calls', intervalMs: 100, stopOn: SiteExited });
    const traceparents = calls.map((call) => call.headers().traceparent);
    for (const traceparent of traceparents) expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(new Set(traceparents.map((traceparent) => traceparent!.split('-')[1])).size).toBe(traceparents.length);
    await page.close();
    expect(pageErrors.filter((message) => !message.startsWith('e2e: '))).toEqual([]);
  });
});
