import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresBus, migrate, platformMigrations, queryRows, type Database, type RequestContext } from '@cliffhanger/platform';
import { openTestDatabase, silentLogger, testConfig } from '@cliffhanger/platform/testing';
import { createAnalyticsService } from '../src/service.ts';

// The analytics rules on a real database (PGlite, or PostgreSQL in npm test's second pass), without HTTP.
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  await migrate(database, 'platform', platformMigrations);
});
afterAll(() => database?.close());

const context: RequestContext = { requestId: 'r', userId: null, attribution: { referrerToken: null, fbclid: 'fb-1', ttclid: null } };
const hits = () => queryRows<{ user_id: string | null; attribution: { referrerToken: string | null; fbclid: string | null }; data: Record<string, unknown> }>(database.db, sql`select user_id, attribution, data from platform.outbox where type = 'statics.hit' order by id`);

describe('the analytics service on a real database', () => {
  const analytics = () => createAnalyticsService({ config: testConfig({ FACEBOOK_PIXEL_ID: '42', BIGO_PIXEL_ID: 'b-7' }), database, bus: createPostgresBus(database, silentLogger), logger: silentLogger });

  it('lists only the pixels the operator configured', () => {
    expect(analytics().pixelConfig()).toEqual([
      { config_key: 'facebook_pixel_id', config_value: '42' },
      { config_key: 'bigo_pixel', config_value: 'b-7' },
    ]);
  });

  it('records a hit with its value in minor units, its attribution and only the clean parameters', async () => {
    await database.db.execute(sql`delete from platform.outbox`);
    await analytics().recordHit(context, { event: 'purchase', value: '4.99', currency: 'EUR', token: 'ref-9', videoId: 'v1', campaign: 'spring', bad: 'a\u0000b', ['x\u0001']: 'y' });
    const [hit] = await hits();
    expect(hit!.attribution).toMatchObject({ referrerToken: 'ref-9', fbclid: 'fb-1' });
    expect(hit!.data).toMatchObject({ event: 'purchase', videoId: 'v1', value: { amount: 499, currency: 'EUR' }, params: { campaign: 'spring' } });
    expect(JSON.stringify(hit!.data)).not.toContain('\\u0000');
  });

  it('records nothing for a hit without an event or with a hostile one, and never throws', async () => {
    await database.db.execute(sql`delete from platform.outbox`);
    for (const query of [{}, { event: '' }, { event: 'a\u0000' }, { event: ['x'] }, { event: 'ok', value: 'NaN', currency: 'dollars' }])
      await expect(analytics().recordHit(context, query)).resolves.toBeUndefined();
    const recorded = await hits();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.data).toMatchObject({ event: 'ok', value: { amount: 0, currency: 'USD' } });
  });
});
