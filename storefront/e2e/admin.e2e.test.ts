import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderClip } from './catalog';
import { launchChromium, startSite, type RunningSite } from './harness';

// The operators' console (issue 29) in Chromium against the real site: a member the admin makes an
// admin signs in with email and password, finds a viewer's order by their email, refunds it after
// confirming, and sees the revenue chart's net total fall by the refund; an operator creates a
// series, uploads an episode with tus whose connection is cut halfway and resumes from where the
// server stopped, sees it become ready and a guest plays it; axe-core finds no serious or critical
// violation on any console page visited. No demo catalog: the one episode uploaded is all there is
// to transcode.
// CONSOLE_SCREENSHOTS=DIR also saves the README's pictures (phone and desktop) there.
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** The console's tus chunk (storefront/src/admin/content/upload.ts). */
const CHUNK = 8 * 1024 * 1024;

let site: RunningSite;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  site = await startSite({ env: { DEMO: '0' } });
  browser = await launchChromium();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

async function api<T>(method: string, path: string, options: { token?: string; admin?: boolean; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${site.baseUrl}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { 'x-user-token': options.token } : {}),
      ...(options.admin ? { authorization: `Bearer ${site.adminToken}` } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { envelope: (await response.json()) as Envelope<T>, token: response.headers.get('x-user-token') };
}

/** A member registered through the API: their token and id. */
async function registerMember(email: string, password: string): Promise<{ token: string; id: string }> {
  const guest = await api<{ id: string }>('GET', '/api/user');
  const registered = await api<{ id: string }>('POST', '/api/user/register', { token: guest.token!, body: { email, password, confirmPassword: password } });
  expect(registered.envelope.code, registered.envelope.message).toBe(200);
  return { token: registered.token ?? guest.token!, id: registered.envelope.data.id };
}

/** A viewer's paid order of 500 coins, the sandbox's test card, paid with this email. */
async function paidOrder(email: string): Promise<string> {
  const { token } = await registerMember(email, 'viewer-pass-9');
  const plans = await api<{ id: string; kind: string }[]>('GET', '/api/plan', { token });
  const plan = plans.envelope.data.find((entry) => entry.kind === 'coins')!;
  const order = await api<{ id: string }>('POST', '/api/payment/order', { token, body: { planId: plan.id } });
  expect(order.envelope.code, order.envelope.message).toBe(200);
  const card = (await (
    await fetch(`${site.baseUrl}/sandbox/v1/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' } }),
    })
  ).json()) as { id: string };
  const paid = await api<{ status: string }>('POST', '/api/payment/pay', {
    token,
    headers: { 'idempotency-key': randomUUID() },
    body: { orderId: order.envelope.data.id, paymentToken: card.id, email, firstName: 'Ada', lastName: 'Viewer' },
  });
  expect(paid.envelope.data.status).toBe('succeeded');
  return order.envelope.data.id;
}

/**
 * axe-core's serious and critical violations on the page as it is now. Its script from node_modules
 * is run through the DevTools protocol rather than added as a tag (page.addScriptTag): the site's CSP
 * (script-src 'self') refuses an inline script, and the console is tested under the CSP it is served with.
 */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(AXE, 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => node.target.join(' ')) }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id} (${violation.impact}): ${violation.targets.join(', ')}`);
}

/** A member made `role` by the admin token, signed in to the console in a page of its own. */
async function signedIn(role: 'admin' | 'operator', name: string) {
  const member = { email: `${name}-${Date.now()}@example.com`, password: 'operator-pass-9' };
  const { id } = await registerMember(member.email, member.password);
  const granted = await api('PUT', `/api/admin/users/${id}/role`, { admin: true, body: { role } });
  expect(granted.envelope.code, granted.envelope.message).toBe(200);
  const context = await browser.newContext({ baseURL: site.baseUrl, viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
  const violations: Record<string, string[]> = {};
  const check = async (name: string) => void (violations[name] = await seriousViolations(page));

  await page.goto('/admin');
  await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
  await check('sign-in');
  await page.getByLabel('Email').fill(member.email);
  await page.getByLabel('Password', { exact: true }).fill(member.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByText(`Signed in as ${member.email}`).waitFor();
  return { id, email: member.email, context, page, violations, check };
}

describe('the operators’ console', () => {
  it('an admin signs in, finds an order by the buyer’s email, refunds it after confirming, and sees the revenue chart’s net fall by the refund', async () => {
    const buyer = `buyer-${Date.now()}@example.com`;
    const orderId = await paidOrder(buyer);
    // A member whom the admin token makes an admin: a refund, plans and people are an admin's.
    const { id, email, context, page, violations, check } = await signedIn('admin', 'admin');
    // The totals before the refund, once the paid order has reached the analyst's summary.
    await page.getByRole('link', { name: 'Analytics', exact: true }).click();
    const before = await revenueTotals(page, (totals) => totals.orders >= 1);

    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    await page.getByLabel('Buyer email').fill(buyer);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: orderId }).waitFor();
    expect(await page.locator('.console-table tbody tr').count()).toBe(1);
    await check('orders');
    await screenshots(page, 'orders');

    await page.getByRole('button', { name: orderId }).click();
    const details = page.getByRole('dialog', { name: `Order ${orderId}` });
    await details.getByLabel('Reason').fill('Bought by mistake');
    await details.getByRole('button', { name: 'Review the refund' }).click();
    const confirm = page.getByRole('dialog', { name: /^Refund \$[\d.]+ of order / });
    await confirm.waitFor();
    const title = await confirm.getByRole('heading', { level: 2 }).first().innerText();
    const refunded = Math.round(Number(/^Refund \$([\d.,]+) /.exec(title)![1]!.replace(/,/g, '')) * 100);
    expect(refunded).toBeGreaterThan(0);
    await check('refund confirmation');
    await confirm.getByRole('button', { name: /^Yes, refund / }).click();
    await details.getByText(/^Refunded\. Coins taken back: \d+/).waitFor();
    await details.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('cell', { name: 'Refunded', exact: true }).waitFor();

    await page.getByRole('link', { name: 'Analytics', exact: true }).click();
    await page.getByRole('img', { name: 'Chart of gross and net revenue per day' }).locator('canvas').first().waitFor();
    // The summary follows payments through events: the page is read again until the refund shows.
    const after = await revenueTotals(page, (totals) => totals.net !== before.net);
    expect(after).toEqual({ gross: before.gross, net: before.net - refunded, orders: before.orders });
    await check('analytics');
    await screenshots(page, 'analytics');

    await page.getByRole('link', { name: 'Operations', exact: true }).click();
    await page.getByRole('heading', { name: 'Dead events' }).waitFor();
    await page.getByText(/No dead events\.|Replay all/).first().waitFor();
    await check('operations');
    await screenshots(page, 'operations');

    await page.getByRole('link', { name: 'Content', exact: true }).click();
    await page.getByRole('heading', { name: 'Series', level: 1 }).waitFor();
    await page.locator('.console-list, .console-error, .console-muted').first().waitFor();
    await check('content');

    await page.goto(`/admin/users/${encodeURIComponent(id)}`);
    await page.getByRole('heading', { name: `User ${email}` }).waitFor();
    await check('user');

    await page.getByRole('link', { name: 'Plans', exact: true }).click();
    await page.getByRole('heading', { name: 'Plans', level: 1 }).waitFor();
    await page.locator('.console-table').waitFor();
    await check('plans');
    await screenshots(page, 'plans');

    await page.getByRole('link', { name: 'People', exact: true }).click();
    await page.getByRole('heading', { name: 'People and roles', level: 1 }).waitFor();
    await page.getByRole('link', { name: email }).waitFor();
    await check('people');
    await screenshots(page, 'people');

    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await page.locator('.console-table tbody tr').first().waitFor();
    await check('audit');
    await screenshots(page, 'audit');

    expect(violations).toEqual({
      'sign-in': [],
      orders: [],
      'refund confirmation': [],
      analytics: [],
      operations: [],
      content: [],
      user: [],
      plans: [],
      people: [],
      audit: [],
    });
    expect(pageErrors).toEqual([]);
    // The refund as the API has it.
    const found = await api<{ items: { id: string; status: string }[] }>('GET', `/api/admin/orders?orderId=${orderId}`, { admin: true });
    expect(found.envelope.data.items[0]).toMatchObject({ id: orderId, status: 'refunded' });
    await context.close();
  });

  it('an operator creates a series, uploads an episode with tus that is cut halfway and resumes where it stopped, sees it become ready live, and a guest plays it', async () => {
    const { context, page, violations, check } = await signedIn('operator', 'operator');
    await page.getByRole('link', { name: 'Content', exact: true }).click();
    await page.getByRole('heading', { name: 'Series', level: 1 }).waitFor();

    const title = `The Long Fall ${Date.now()}`;
    const create = page.locator('details.console-details');
    await create.getByText('New series', { exact: true }).click();
    await create.getByLabel('Title', { exact: true }).fill(title);
    await create.getByLabel('Description').fill('A climber, a rope, a secret.');
    await create.getByLabel('Categories, separated by commas').fill('Thriller');
    await create.getByRole('button', { name: 'Create the series' }).click();
    await page.getByText('Series created.').waitFor();
    await page.getByRole('heading', { name: title, level: 2 }).waitFor();
    const seriesId = new URL(page.url()).searchParams.get('series')!;
    expect(seriesId).toBeTruthy();

    // The file as the operator would choose it; the page sends it with tus-js-client to
    // /api/admin/uploads. Two and a half chunks: a short clip followed by a top-level `free` box,
    // which players and ffmpeg skip, so it still transcodes in seconds.
    const clip = paddedTo(renderClip(), 2.5 * CHUNK);
    // The connection drops on the second chunk (the browser's request is reset before it reaches the
    // server); the client's next question to the server (HEAD) is held until the page says it is resuming.
    const sent: { method: string; offset: number | null }[] = [];
    const serverOffsets: number[] = [];
    page.on('request', (request) => {
      if (!request.url().includes('/api/admin/uploads')) return;
      const offset = request.headers()['upload-offset'];
      sent.push({ method: request.method(), offset: offset === undefined ? null : Number(offset) });
    });
    page.on('response', (response) => {
      if (response.url().includes('/api/admin/uploads/') && response.request().method() === 'HEAD') serverOffsets.push(Number(response.headers()['upload-offset']));
    });
    let patches = 0;
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    await page.route('**/api/admin/uploads/*', async (route) => {
      const method = route.request().method();
      if (method === 'PATCH' && ++patches === 2) return route.abort('connectionreset');
      if (method === 'HEAD') await resumed;
      return route.continue();
    });
    await page.getByLabel('Video files').setInputFiles({ name: 'pilot.mp4', mimeType: 'video/mp4', buffer: clip });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText(/^pilot\.mp4: connection lost at \d+%, resuming…$/).waitFor({ timeout: 60_000 });
    resume();
    await page.getByText('pilot.mp4: uploaded').waitFor({ timeout: 60_000 });
    await page.unrouteAll();
    // Created once, never started over: the chunk after the cut starts where the server had stopped,
    // so what arrived before the cut is not sent again.
    expect(serverOffsets).toEqual([CHUNK]);
    expect(sent).toEqual([
      { method: 'POST', offset: null },
      { method: 'PATCH', offset: 0 },
      { method: 'PATCH', offset: CHUNK },
      { method: 'HEAD', offset: null },
      { method: 'PATCH', offset: CHUNK },
      { method: 'PATCH', offset: 2 * CHUNK },
    ]);
    // Live: the page asks for the series again while its episode waits or transcodes, never reloaded here.
    const row = page.locator('.console-table tbody tr', { hasText: '1. pilot' });
    await row.locator('.console-status--ready').waitFor({ timeout: 180_000 });
    await check('series');
    await screenshots(page, 'content', page.getByRole('heading', { name: 'Episodes', exact: true, level: 3 }));

    await page.getByRole('button', { name: 'Back to all series' }).click();
    await page.getByRole('button', { name: title }).waitFor();
    await check('content list');
    expect(violations).toEqual({ 'sign-in': [], series: [], 'content list': [] });
    await context.close();

    // A guest on the viewer's site: the first episode is free (5 free episodes by default) and plays.
    const guest = await browser.newContext({ baseURL: site.baseUrl, viewport: { width: 390, height: 844 }, locale: 'en-US' });
    const viewer = await guest.newPage();
    await viewer.goto(`/videos/${encodeURIComponent(seriesId)}`);
    await viewer.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 0.5, undefined, { timeout: 90_000 });
    await guest.close();
    expect(pageErrors).toEqual([]);
  }, 420_000);

  it('serves the console for every address under /admin, and nothing of it in the viewer’s page', async () => {
    const deep = await fetch(`${site.baseUrl}/admin/users/someone`, { headers: { accept: 'text/html' } });
    expect(deep.status).toBe(200);
    const html = await deep.text();
    expect(html).toContain('<div id="admin">');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const home = await (await fetch(`${site.baseUrl}/`, { headers: { accept: 'text/html' } })).text();
    expect(home).not.toMatch(/assets\/admin-/);
  });
});

/** `clip` followed by an MP4 `free` box that makes it `size` bytes long. */
function paddedTo(clip: Buffer, size: number): Buffer {
  const free = Buffer.alloc(size - clip.length);
  free.writeUInt32BE(free.length, 0);
  free.write('free', 4, 'latin1');
  return Buffer.concat([clip, free]);
}

/**
 * The analytics page's totals line ("Total: $X gross, $Y net, N orders") as cents and a count, read
 * again after a reload until `ready` holds (the summary is fed by events, a moment behind).
 */
async function revenueTotals(page: Page, ready: (totals: { gross: number; net: number; orders: number }) => boolean) {
  const cents = (text: string) => Math.round(Number(text.replace(/[^\d.-]/g, '')) * 100);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const line = await page.getByText(/^Total: /).innerText();
    const [, gross, net, orders] = /^Total: (\S+) gross, (\S+) net, (\d+) orders$/.exec(line) ?? [];
    expect(orders, line).toBeDefined();
    const totals = { gross: cents(gross!), net: cents(net!), orders: Number(orders) };
    if (ready(totals) || Date.now() > deadline) return totals;
    await page.waitForTimeout(1000);
    await page.reload();
  }
}

/** The README's pictures, phone and desktop, when CONSOLE_SCREENSHOTS names a folder: from the top of the page, or from `at`. */
async function screenshots(page: Page, name: string, at?: Locator) {
  const dir = process.env.CONSOLE_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const scroll = async () => {
    if (!at) return page.evaluate(() => window.scrollTo(0, 0));
    await at.evaluate((element) => window.scrollTo(0, element.getBoundingClientRect().top + window.scrollY - 16));
  };
  await scroll();
  await page.screenshot({ path: join(dir, `console-${name}-desktop.png`) });
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  await scroll();
  await page.screenshot({ path: join(dir, `console-${name}-phone.png`) });
  await page.setViewportSize(size);
  await page.waitForTimeout(300);
}
