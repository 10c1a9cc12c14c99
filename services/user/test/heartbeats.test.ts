import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@cliffhanger/platform';
import { startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule, type LocalCatalogClient } from '@cliffhanger/catalog';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '../src/index.ts';

// Heartbeats through the site as `npm start` composes it, with a flush interval no test outlives:
// what is written comes from a leave, a read or the shutdown, never from the timer.
let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule], env: { HISTORY_FLUSH_MS: '60000' } });
  const { admin } = site.instances.get('catalog')!.client as LocalCatalogClient;
  await admin.createSeries({ id: 'beats', title: 'Beats', tags: ['Romance'] });
  await admin.planEpisodes('beats', 3);
});
afterAll(() => site?.close());

const stored = (userId: string) =>
  queryRows<{ position_seconds: number }>(site.platform.database.db, sql`select position_seconds from users.history where user_id = ${userId}`);
const beat = (token: string, positionSeconds: number, final?: boolean) =>
  site.call('POST', '/api/user/history', { token, body: { episodeId: 'beats-ep1', positionSeconds, ...(final === undefined ? {} : { final }) } });

describe('heartbeats through the site', () => {
  it('a beat is held, a leave (final) is written at once, and the viewer reads the latest either way', async () => {
    const guest = await site.call('GET', '/api/user');
    const [token, id] = [guest.headers.get('x-user-token')!, guest.data.id as string];
    expect((await beat(token, 5)).code).toBe(200);
    expect(await stored(id)).toEqual([]);
    expect((await site.call('GET', '/api/user/history', { token })).data.items[0]).toMatchObject({ positionSeconds: 5 });
    expect((await beat(token, 9, true)).code).toBe(200);
    expect(await stored(id)).toEqual([{ position_seconds: 9 }]);
    expect((await beat(token, 10, 'yes' as unknown as boolean)).code).toBe(422);
  });

  it('stopping (SIGTERM) writes every position held before the database closes', async () => {
    const viewers = await Promise.all([1, 2, 3].map(() => site.call('GET', '/api/user')));
    for (const [n, viewer] of viewers.entries()) expect((await beat(viewer.headers.get('x-user-token')!, 20 + n)).code).toBe(200);
    for (const viewer of viewers) expect(await stored(viewer.data.id)).toEqual([]);
    await site.stopBackground();
    for (const [n, viewer] of viewers.entries()) expect(await stored(viewer.data.id)).toEqual([{ position_seconds: 20 + n }]);
  });
});
