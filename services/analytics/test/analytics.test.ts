import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@cliffhanger/platform';
import { startTestGateway, type TestGateway } from '../../../gateway/test/harness.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({ FACEBOOK_PIXEL_ID: '1234567890', TIKTOK_PIXEL_ID: 'TT-42' });
});
afterAll(() => gateway.close());

const hits = () =>
  queryRows<{ user_id: string | null; attribution: Record<string, unknown>; data: Record<string, unknown> }>(
    gateway.platform.database.db,
    sql`select user_id, attribution, data from platform.outbox where type = 'statics.hit' order by id`,
  );

describe('the analytics pixel', () => {
  it('answers a 1x1 PNG and records the hit with its attribution', async () => {
    const userId = '0b9b4c1e-2f4a-4c8e-9d7a-3f1e2d4c5b6a';
    const response = await fetch(
      `${gateway.url}/api/statics.png?event=episode_play&videoId=v1&episodeId=v1-ep2&value=4.99&currency=USD&userId=${userId}&token=ref-9&fbclid=fb-9&lang=es`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.subarray(1, 4).toString()).toBe('PNG');
    expect(body.readUInt32BE(16)).toBe(1);
    expect(body.readUInt32BE(20)).toBe(1);
    const [hit] = (await hits()).slice(-1);
    expect(hit).toMatchObject({
      user_id: userId,
      attribution: { referrerToken: 'ref-9', fbclid: 'fb-9' },
      data: { event: 'episode_play', videoId: 'v1', episodeId: 'v1-ep2', value: { amount: 499, currency: 'USD' }, params: { lang: 'es' } },
    });
  });

  it('answers the PNG for any input and keeps only what makes sense', async () => {
    const before = (await hits()).length;
    for (const query of ['', 'value=abc', 'event=x&value=-5&currency=dollars&userId=not-a-uuid', `event=${'e'.repeat(5000)}&path=${'p'.repeat(5000)}`, 'event=%E0%A4%A', 'event[]=a&event[]=b'])
      expect((await fetch(`${gateway.url}/api/statics.png?${query}`)).headers.get('content-type'), query).toBe('image/png');
    const recorded = (await hits()).slice(before);
    // No event name, or a list of them, is no hit; a malformed escape is decoded as far as it goes.
    expect(recorded.map((hit) => (hit.data.event as string).slice(0, 3))).toEqual(['x', 'eee', '\ufffd%A']);
    expect(recorded[0]).toMatchObject({ user_id: null, data: { event: 'x', value: { amount: 0, currency: 'USD' } } });
    expect((recorded[1]!.data.event as string).length).toBe(100);
    expect((recorded[1]!.data.path as string).length).toBe(200);
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
