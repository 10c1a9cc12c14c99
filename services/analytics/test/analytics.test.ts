import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelope } from '@cliffhanger/platform';
import { ADMIN_TOKEN, eventually, outboxEvents, silentLogger, startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule } from '@cliffhanger/catalog';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';
import { analyticsAdminRoutes } from '../src/admin-routes.ts';
import { analyticsModule } from '../src/index.ts';
import { createAnalyticsReports } from '../src/reports.ts';

let gateway: Site;
beforeAll(async () => {
  gateway = await startSite({
    modules: [userModule, catalogModule, unlockModule, transcoderModule, analyticsModule],
    env: { FACEBOOK_PIXEL_ID: '1234567890', TIKTOK_PIXEL_ID: 'TT-42' },
  });
});
afterAll(() => gateway.close());

/** The statics.hit events written, as the buses hand them on (the pixel writes a row per batch). */
const hits = async () =>
  (await outboxEvents(gateway.platform.database.db, 'statics.hit')).map((event) => ({ user_id: event.userId, attribution: event.attribution, data: event.data }));

describe('the analytics pixel', () => {
  it("answers a 1x1 PNG and records the hit with its attribution, under the token's user, not the query's", async () => {
    const token = await gateway.guest();
    const me = (await gateway.call('GET', '/api/user', { token })).data.id as string;
    const before = (await hits()).length;
    const response = await fetch(
      `${gateway.url}/api/statics.png?event=episode_play&videoId=v1&episodeId=v1-ep2&value=4.99&currency=USD&userId=0b9b4c1e-2f4a-4c8e-9d7a-3f1e2d4c5b6a&token=ref-9&fbclid=fb-9&lang=es`,
      { headers: { 'x-user-token': token } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.subarray(1, 4).toString()).toBe('PNG');
    expect(body.readUInt32BE(16)).toBe(1);
    expect(body.readUInt32BE(20)).toBe(1);
    const [hit] = await eventually(async () => ((await hits()).length > before ? (await hits()).slice(-1) : null));
    expect(hit).toMatchObject({
      user_id: me,
      attribution: { referrerToken: 'ref-9', fbclid: 'fb-9' },
      data: { event: 'episode_play', videoId: 'v1', episodeId: 'v1-ep2', value: { amount: 499, currency: 'USD' }, params: { lang: 'es' } },
    });
  });

  it('answers the PNG for any input, in front of every API rule, and keeps only what makes sense', async () => {
    const before = (await hits()).length;
    for (const query of ['', 'value=abc', 'event=x&value=-5&currency=dollars&userId=not-a-uuid', `event=${'e'.repeat(5000)}&path=${'p'.repeat(5000)}`, 'event=%E0%A4%A', 'event[]=a&event[]=b', 'event=nul&bad=%00'])
      expect((await fetch(`${gateway.url}/api/statics.png?${query}`)).headers.get('content-type'), query).toBe('image/png');
    const recorded = await eventually(async () => ((await hits()).length >= before + 4 ? (await hits()).slice(before) : null));
    // No event name, or a list of them, is no hit; a malformed escape is decoded as far as it goes.
    expect(recorded.map((hit) => (hit.data.event as string).slice(0, 3))).toEqual(['x', 'eee', '\ufffd%A', 'nul']);
    expect(recorded[0]).toMatchObject({ user_id: null, data: { event: 'x', value: { amount: 0, currency: 'USD' } } });
    expect((recorded[1]!.data.event as string).length).toBe(100);
    expect((recorded[1]!.data.path as string).length).toBe(200);
    expect(recorded[3]!.data.params).toEqual({});
  });

  it('leaves other methods on statics.png to the API, which refuses them', async () => {
    const answer = await gateway.call('POST', '/api/statics.png', { body: {} });
    expect(answer.status).not.toBe(200);
  });
});

describe('pixel configuration', () => {
  it('lists the advertising pixels the operator configured', async () => {
    const answer = await gateway.call('GET', '/api/reports');
    expect(answer.data).toEqual([
      { config_key: 'facebook_pixel_id', config_value: '1234567890' },
      { config_key: 'tiktok_pixel', config_value: 'TT-42' },
    ]);
  });
});

const dayOf = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const around = `from=${dayOf(-1)}&to=${dayOf(1)}`;

describe('the analyst API', () => {
  it('shows a landing with an fbclid under its click id and campaign, in JSON with the model and the funnel and as a safe CSV', async () => {
    const hostile = '=HYPERLINK("http://evil.example","x"),1';
    const pixel = await fetch(`${gateway.url}/api/statics.png?event=landing&visit=api-visit-1&fbclid=fb-api-1&utm_campaign=${encodeURIComponent(hostile)}`);
    expect(pixel.status).toBe(200);

    const byClick = await eventually(async () => {
      const answer = await gateway.admin('GET', `/api/admin/analytics/summary?${around}&by=clickId`);
      return answer.data?.find?.((row: { key: string }) => row.key === 'fb-api-1') ? answer : null;
    }, 10_000, 'the landing in the summary');
    expect(byClick).toMatchObject({ code: 200, model: 'last', funnel: { landed: expect.any(Number), viewed: expect.any(Number), registered: expect.any(Number), converted: expect.any(Number), paid: expect.any(Number) } });
    expect(byClick.data.find((row: { key: string }) => row.key === 'fb-api-1')).toEqual({
      key: 'fb-api-1',
      visits: 1,
      landings: 1,
      pageViews: 1,
      videoViews: 0,
      plays: 0,
      unlocks: 0,
      orders: 0,
      revenue: { amount: 0, currency: 'USD' },
      revenueNet: { amount: 0, currency: 'USD' },
      vipStarts: 0,
      vipCancels: 0,
    });

    const csv = await fetch(`${gateway.url}/api/admin/analytics/summary?${around}&by=campaign&model=first&format=csv`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="analytics-summary-campaign-first-${dayOf(-1)}-${dayOf(1)}.csv"`);
    const lines = (await csv.text()).split('\r\n');
    expect(lines[0]).toBe('model,key,visits,landings,pageViews,videoViews,plays,unlocks,orders,revenueAmount,revenueCurrency,revenueNetAmount,revenueNetCurrency,vipStarts,vipCancels');
    // Quoted for its comma and quotes, and led by an apostrophe so no spreadsheet runs it as a formula.
    expect(lines).toContain(`first,"'=HYPERLINK(""http://evil.example"",""x""),1",1,1,1,0,0,0,0,0,USD,0,USD,0,0`);
    expect(lines.at(-1)).toBe('');
  });

  it('answers the playback rows per episode and per rung, in JSON and as CSV', async () => {
    await fetch(`${gateway.url}/api/statics.png?event=playback&episodeId=api-ep1&startupMs=400&rebufferMs=0&rebufferCount=0&watchMs=1000&rung=540p`);
    const rows = await eventually(async () => {
      const answer = await gateway.admin('GET', `/api/admin/analytics/playback?${around}&by=rung`);
      return answer.data?.length ? answer.data : null;
    }, 10_000, 'the playback report');
    const quality = { plays: 1, startupMsP50: 400, startupMsP95: 400, rebufferRatio: 0, rebufferCount: 0, exitsBeforeStart: 0, startFailures: 0, errors: 0 };
    expect(rows).toEqual([{ key: '540p', ...quality }]);
    expect((await gateway.admin('GET', `/api/admin/analytics/playback?${around}`)).data).toEqual([{ key: 'api-ep1', ...quality }]);
    const csv = await fetch(`${gateway.url}/api/admin/analytics/playback?${around}&format=csv`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="analytics-playback-episode-${dayOf(-1)}-${dayOf(1)}.csv"`);
    expect(await csv.text()).toBe(
      'key,plays,startupMsP50,startupMsP95,rebufferRatio,rebufferCount,exitsBeforeStart,startFailures,errors\r\napi-ep1,1,400,400,0,0,0,0,0\r\n',
    );
  });

  it('answers 401 without the admin token or a session, 403 with a wrong token, with or without the catalog beside it', async () => {
    // The analytics router alone, as when analytics runs apart from the catalog (whose guard covers all of /api/admin).
    const alone = express()
      .use(analyticsAdminRoutes(createAnalyticsReports(gateway.platform), ADMIN_TOKEN))
      .use(errorEnvelope(silentLogger))
      .listen(0, '127.0.0.1');
    await once(alone, 'listening');
    const aloneUrl = `http://127.0.0.1:${(alone.address() as AddressInfo).port}`;
    const codeOf = async (url: string, token?: string) =>
      ((await (await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} })).json()) as { code: number }).code;
    try {
      for (const base of [gateway.url, aloneUrl])
        for (const path of [`/api/admin/analytics/summary?${around}`, `/api/admin/analytics/playback?${around}`, `/api/admin/analytics/summary?${around}&format=csv`]) {
          expect(await codeOf(base + path), base + path).toBe(401);
          expect(await codeOf(base + path, 'not-the-admin-token-0123456789'), base + path).toBe(403);
        }
      expect(await codeOf(`${aloneUrl}/api/admin/analytics/summary?${around}`, ADMIN_TOKEN)).toBe(200);
    } finally {
      alone.close();
    }
  });

  it('answers 422 for a bad date, a range that ends before it starts or spans more than 366 days, and an unknown dimension', async () => {
    const cases: [string, string][] = [
      ['summary?to=2025-01-31', 'from'],
      ['summary?from=2025-02-30&to=2025-03-01', 'from'],
      ['summary?from=0000-12-31&to=0001-01-01', 'from'],
      ['summary?from=2025-01-01&to=tomorrow', 'to'],
      ['summary?from=2025-02-01&to=2025-01-31', 'to'],
      ['summary?from=2024-01-01&to=2025-01-01', 'to'],
      ['summary?from=2025-01-01&to=2025-01-31&by=country', 'by'],
      ['summary?from=2025-01-01&to=2025-01-31&format=xlsx', 'format'],
      ['summary?from=2025-01-01&to=2025-01-31&model=linear', 'model'],
      ['summary?from=2025-01-01&from=2025-01-02&to=2025-01-31', 'from'],
      ['playback?from=2025-01-01&to=2025-01-31&by=day', 'by'],
    ];
    for (const [query, field] of cases) {
      const answer = await gateway.admin('GET', `/api/admin/analytics/${query}`);
      expect(answer.code, query).toBe(422);
      expect(Object.keys(answer.data.fields), query).toEqual([field]);
    }
    // A leap year's 366 days are one range.
    expect((await gateway.admin('GET', '/api/admin/analytics/summary?from=2024-01-01&to=2024-12-31')).code).toBe(200);
  });
});
