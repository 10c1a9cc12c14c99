import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '@cliffhanger/platform';
import { eventually, outboxEvents, startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule } from '@cliffhanger/catalog';
import { paymentModule } from '@cliffhanger/payment';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';
import { analyticsModule } from '../src/index.ts';

// An order keeps the utm_* fields of the visit it was placed in (x-utm, as the storefront sends them),
// its events carry them, and the analyst's summary counts it under its own campaign.
let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule, paymentModule, analyticsModule] });
});
afterAll(() => site?.close());

async function tokenize(number: string): Promise<string> {
  const response = await fetch(`${site.url}/sandbox/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' } }),
  });
  return ((await response.json()) as { id: string }).id;
}

const day = new Date().toISOString().slice(0, 10);
const campaignRow = async (campaign: string, model = 'last') => {
  const summary = await site.admin('GET', `/api/admin/analytics/summary?from=${day}&to=${day}&by=campaign&model=${model}`);
  return (summary.data as { key: string; orders: number; landings: number; revenue: { amount: number } }[]).find((entry) => entry.key === campaign);
};

async function placeAndPay(token: string, headers: Record<string, string>): Promise<string> {
  const order = await site.call('POST', '/api/payment/order', { token, headers, body: { planId: 'coins-500' } });
  expect(order.code).toBe(200);
  const orderId = order.data.id as string;
  const paid = await site.call('POST', '/api/payment/pay', {
    token,
    headers: { ...headers, 'idempotency-key': randomUUID() },
    body: { orderId, paymentToken: await tokenize('4242424242424242'), email: `buyer.${randomUUID()}@example.com`, firstName: 'Ada', lastName: 'Viewer' },
  });
  expect(paid.data).toMatchObject({ orderId, status: 'succeeded' });
  return orderId;
}

describe('campaigns of orders', () => {
  it('an order placed in a visit from utm_campaign=spring carries it, on its row and its events, and counts under spring', async () => {
    const spring = `spring-${randomUUID()}`;
    const token = await site.guest();
    const landing = await fetch(`${site.url}/api/statics.png?event=landing&visit=${randomUUID()}&path=/&utm_source=news&utm_medium=email&utm_campaign=${spring}`, {
      headers: { 'x-user-token': token },
    });
    expect(landing.status).toBe(200);
    const utm = new URLSearchParams({ utm_source: 'news', utm_medium: 'email', utm_campaign: spring }).toString();
    const orderId = await placeAndPay(token, { 'x-utm': utm });

    const [row] = await queryRows<Record<string, string | null>>(
      site.platform.database.db,
      sql`select utm_source, utm_medium, utm_campaign, utm_term, utm_content from payment.orders where id = ${orderId}`,
    );
    expect(row).toEqual({ utm_source: 'news', utm_medium: 'email', utm_campaign: spring, utm_term: null, utm_content: null });
    for (const type of ['order.created', 'payment.succeeded'] as const) {
      const event = (await outboxEvents(site.platform.database.db, type)).find((candidate) => candidate.data.orderId === orderId);
      expect(event?.attribution, type).toMatchObject({ utmSource: 'news', utmMedium: 'email', utmCampaign: spring });
    }

    const counted = await eventually(async () => {
      const mine = await campaignRow(spring);
      // The pixel's landing reaches the aggregates through the gateway's stored batch, on its own clock: waited for too.
      return mine?.orders === 1 && mine.revenue.amount === 499 && mine.landings === 1 ? mine : null;
    }, 30_000, 'the order and the landing under their campaign');
    expect(counted).toMatchObject({ key: spring, landings: 1, orders: 1, revenue: { amount: 499, currency: 'USD' } });
  }, 120_000);

  it("counts an order under its own campaign, not the viewer's earlier one, in the last-touch model", async () => {
    const autumn = `autumn-${randomUUID()}`;
    const winter = `winter-${randomUUID()}`;
    const token = await site.guest();
    await fetch(`${site.url}/api/statics.png?event=landing&visit=${randomUUID()}&path=/&utm_campaign=${autumn}`, { headers: { 'x-user-token': token } });
    await eventually(async () => ((await campaignRow(autumn))?.landings === 1 ? true : null), 20_000, 'the landing under autumn');
    // The order arrives from another campaign's link, with no landing hit of its own (a lost one).
    await placeAndPay(token, { 'x-utm': `utm_campaign=${winter}` });

    const last = await eventually(async () => {
      const mine = await campaignRow(winter);
      return mine?.orders === 1 && mine.revenue.amount === 499 ? mine : null;
    }, 20_000, 'the order under its own campaign');
    expect(last).toMatchObject({ orders: 1 });
    expect((await campaignRow(autumn))?.orders ?? 0).toBe(0);
    // First touch keeps the campaign the viewer first came with.
    expect(await campaignRow(autumn, 'first')).toMatchObject({ orders: 1 });
  }, 120_000);
});
