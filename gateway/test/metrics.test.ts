import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, eventually, startSite, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';

// What /metrics tells an operator after a little traffic: the series README "For operators" names.
let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: registry.modules });
});
afterAll(() => site?.close());

const scrape = async () => (await fetch(`${site.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
/** The value of one sample, or null when the series has no such sample. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

async function buyCoins(token: string, card: string) {
  const plans = await site.call('GET', '/api/plan', { token });
  const pack = plans.data.find((plan: { kind: string; firstPurchaseOnly?: boolean }) => plan.kind === 'coins' && !plan.firstPurchaseOnly);
  const order = await site.call('POST', '/api/payment/order', { token, body: { planId: pack.id } });
  const tokenized = await fetch(`${site.url}/sandbox/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card: { number: card, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } }),
  }).then((response) => response.json());
  await site.call('POST', '/api/payment/pay', {
    token,
    headers: { 'idempotency-key': `metrics-${card}-${Date.now()}` },
    body: { orderId: order.data.id, paymentToken: tokenized.id, email: 'metrics@example.com', firstName: 'Ada', lastName: 'Metrics' },
  });
  return pack.price as { amount: number; currency: string };
}

describe('/metrics', () => {
  it('counts requests, payments, pixel hits, jobs, the outbox and each consumer', async () => {
    const token = await site.guest();
    const price = await buyCoins(token, '4242424242424242');
    await buyCoins(token, '4000000000000002');
    await fetch(`${site.url}/api/statics.png?event=landing`);
    const videoId = await site.series({ title: 'Metered', freeEpisodes: 1, priceCoins: 10 });
    const upload = await site.upload(videoId, Buffer.from('not a video at all\n'.repeat(10)));
    await site.settled(upload.data.id);

    const text = await eventually(async () => {
      const body = await scrape();
      return sample(body, 'pixel_hits_total', { outcome: 'written' }) === 1 && sample(body, 'edge_batch_lag_seconds') === 0 && sample(body, 'outbox_waiting_events') === 0
        ? body
        : null;
    }, 20_000, 'the pixel hit stored, made an event, and the outbox handed on');
    expect(sample(text, 'http_requests_total', { route: '/api/plan', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/payment\/pay"/);
    expect(sample(text, 'payments_total', { outcome: 'succeeded', kind: 'coins' })).toBe(1);
    expect(sample(text, 'payments_total', { outcome: 'failed', kind: 'coins' })).toBe(1);
    expect(sample(text, 'payments_amount_minor_total', { currency: price.currency })).toBe(price.amount);
    // The upload is no video: its transcode job fails at once, and ends dead after its tries.
    expect(sample(text, 'job_duration_seconds_count', { queue: 'transcode-episode', outcome: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'queue_jobs', { queue: 'transcode-episode', status: 'waiting' })).toBe(0);
    expect(sample(text, 'outbox_lag_seconds')).toBe(0);
    expect(sample(text, 'consumer_lag_events', { consumer: 'analytics.aggregates' })).not.toBeNull();
    expect(sample(text, 'pixel_buffer_hits')).toBe(0);
  }, 90_000);
});
