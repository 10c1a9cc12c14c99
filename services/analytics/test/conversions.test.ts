import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '@cliffhanger/platform';
import { ADMIN_TOKEN, eventually, makeClip, startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule } from '@cliffhanger/catalog';
import { paymentModule } from '@cliffhanger/payment';
import { ffmpegTools, transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';
import { analyticsModule } from '../src/index.ts';
import { FACEBOOK_PIXEL, FACEBOOK_TOKEN, facebookStandIn, TIKTOK_PIXEL, TIKTOK_TOKEN, tiktokStandIn } from './conversion-stand-ins.ts';

// The whole site as `npm start` composes it, with both tokens configured and the two APIs standing in
// on loopback: what a viewer who came from an ad does reaches the advertisers with the ad's click ids.
const facebook = facebookStandIn();
const tiktok = tiktokStandIn();
const PUBLIC_URL = 'https://cliffhanger.example';
let site: Site;
beforeAll(async () => {
  site = await startSite({
    modules: [userModule, catalogModule, unlockModule, transcoderModule, paymentModule, analyticsModule],
    env: {
      PUBLIC_URL,
      FACEBOOK_PIXEL_ID: FACEBOOK_PIXEL,
      FACEBOOK_CAPI_TOKEN: FACEBOOK_TOKEN,
      FACEBOOK_GRAPH_URL: await facebook.listen(),
      TIKTOK_PIXEL_ID: TIKTOK_PIXEL,
      TIKTOK_EVENTS_TOKEN: TIKTOK_TOKEN,
      TIKTOK_EVENTS_URL: await tiktok.listen(),
    },
  });
});
afterAll(async () => {
  await site?.close();
  facebook.close();
  tiktok.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function tokenize(number: string): Promise<string> {
  const response = await fetch(`${site.url}/sandbox/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' } }),
  });
  return ((await response.json()) as { id: string }).id;
}

describe('server-side conversions through the site', () => {
  it('a viewer landing from an ad with fbclid and ttclid registers, pays and unlocks: the click id is on the order, the unlock, the aggregate, the CSV and both APIs', async () => {
    const fbclid = `IwAR-site-${randomUUID()}`;
    const ttclid = `E.C.P.site-${randomUUID()}`;
    // The landing's first call carries the ad's click ids in its query; the storefront keeps them and
    // sends them as headers on every later call.
    const landing = await site.call('GET', `/api/user?fbclid=${fbclid}&ttclid=${ttclid}`);
    const clicks = { 'x-fbclid': fbclid, 'x-ttclid': ttclid };
    const email = `Ada.${randomUUID()}@Example.com`;
    const password = 'correct horse 1';
    const registered = await site.call('POST', '/api/user/register', {
      token: landing.headers.get('x-user-token'),
      headers: clicks,
      body: { email, password, confirmPassword: password },
    });
    expect(registered.code).toBe(200);
    const token = registered.headers.get('x-user-token')!;
    const userId = registered.data.id as string;

    const order = await site.call('POST', '/api/payment/order', { token, headers: clicks, body: { planId: 'coins-500' } });
    expect(order.code).toBe(200);
    const orderId = order.data.id as string;
    const paid = await site.call('POST', '/api/payment/pay', {
      token,
      headers: { ...clicks, 'idempotency-key': randomUUID() },
      body: { orderId, paymentToken: await tokenize('4242424242424242'), email, firstName: 'Ada', lastName: 'Viewer' },
    });
    expect(paid.data).toMatchObject({ orderId, status: 'succeeded' });

    const eventId = `order:${orderId}`;
    const [purchase] = await eventually(() => (facebook.of(eventId).length > 0 ? facebook.of(eventId) : null), 10_000, 'the Purchase at Facebook');
    expect(purchase!.entry).toMatchObject({
      event_name: 'Purchase',
      event_id: eventId,
      action_source: 'website',
      event_source_url: `${PUBLIC_URL}/order/result`,
      user_data: { em: sha256(email.toLowerCase()), external_id: sha256(userId), fbc: expect.stringMatching(new RegExp(`^fb\\.1\\.\\d{13}\\.${fbclid}$`)) },
      custom_data: { value: 4.99, currency: 'USD' },
    });
    const [payment] = await eventually(() => (tiktok.of(eventId).length > 0 ? tiktok.of(eventId) : null), 10_000, 'the CompletePayment at TikTok');
    expect(payment!.entry).toMatchObject({ event: 'CompletePayment', user: { ttclid, external_id: sha256(userId), email: sha256(email.toLowerCase()) }, properties: { value: 4.99, currency: 'USD' } });

    const registrationOf = (standIn: typeof facebook) =>
      standIn.received.filter((sent) => [sent.entry.event_name, sent.entry.event].includes('CompleteRegistration') && JSON.stringify(sent.entry).includes(sha256(userId)));
    const [facebookRegistration] = await eventually(() => (registrationOf(facebook).length > 0 ? registrationOf(facebook) : null), 10_000, 'the registration at Facebook');
    expect(facebookRegistration!.entry.user_data).toMatchObject({ em: sha256(email.toLowerCase()), fbc: expect.stringMatching(new RegExp(`\\.${fbclid}$`)) });
    const [tiktokRegistration] = await eventually(() => (registrationOf(tiktok).length > 0 ? registrationOf(tiktok) : null), 10_000, 'the registration at TikTok');
    expect(tiktokRegistration!.entry.user).toMatchObject({ ttclid });
    // Both know the registration by one id, the user.registered event's.
    expect(facebookRegistration!.entry.event_id).toBe(tiktokRegistration!.entry.event_id);

    // The coins unlock an episode: the ad's click id is on the order, on the unlock's event, in the
    // analyst's aggregate and in its CSV export.
    const [paidOrder] = await queryRows<{ fbclid: string | null }>(site.platform.database.db, sql`select fbclid from payment.orders where id = ${orderId}`);
    expect(paidOrder!.fbclid).toBe(fbclid);
    const videoId = await site.series({ title: 'From The Ad', freeEpisodes: 0, priceCoins: 30 });
    const episodeId = (await site.upload(videoId, await makeClip(ffmpegTools()))).data.id as string;
    // Only an episode that plays is sold.
    expect((await site.settled(episodeId)).status).toBe('ready');
    expect(await site.call('POST', '/api/video/unlock', { token, headers: clicks, body: { episodeId } })).toMatchObject({ code: 200, data: { episodeId } });
    const [unlocked] = await queryRows<{ attribution: { fbclid: string | null } }>(
      site.platform.database.db,
      sql`select attribution from platform.outbox where type = 'episode.unlocked' and user_id = ${userId}`,
    );
    expect(unlocked!.attribution.fbclid).toBe(fbclid);
    const day = new Date().toISOString().slice(0, 10);
    const row = await eventually(async () => {
      const summary = await site.admin('GET', `/api/admin/analytics/summary?from=${day}&to=${day}&by=clickId`);
      const mine = summary.data?.find?.((entry: { key: string }) => entry.key === fbclid);
      return mine?.unlocks === 1 && mine?.orders === 1 ? mine : null;
    }, 10_000, 'the unlock and the order under the click id');
    expect(row).toMatchObject({ key: fbclid, unlocks: 1, orders: 1, revenue: { amount: 499, currency: 'USD' } });
    const csv = await fetch(`${site.url}/api/admin/analytics/summary?from=${day}&to=${day}&by=clickId&format=csv`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect((await csv.text()).split('\r\n').find((line) => line.startsWith(`last,${fbclid},`))).toMatch(new RegExp(`^last,${fbclid},(\\d+,){5}1,1,499,USD,`));
  }, 120_000);
});
