import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, systemContext } from '@cliffhanger/platform';
import { eventually, startSite, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';

let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: registry.modules, env: { DEMO: '0' } });
});
afterAll(() => site?.close());

describe('the admin API of the bus', () => {
  it('lists set-aside events and puts them back for replay, for operators only', async () => {
    const event = await site.platform.database.transaction((tx) =>
      appendEvent(tx, systemContext(), 'favorite.changed', { videoId: 'v1', favorite: true }, 'u1'),
    );
    await site.platform.database.db.execute(sql`
      insert into platform.dead_events (consumer, event_id, error, attempts) values ('nobody-consumes-this', ${event.id}, 'Error: dependency down', 12)`);

    expect((await site.call('GET', '/api/admin/events/dead')).code).toBe(401);
    const dead = await site.admin('GET', '/api/admin/events/dead');
    expect(dead.data).toEqual([
      expect.objectContaining({ consumer: 'nobody-consumes-this', eventId: event.id, type: 'favorite.changed', error: 'Error: dependency down', attempts: 12, replayRequestedAt: null }),
    ]);
    expect(await site.admin('POST', '/api/admin/events/replay', { body: { ids: ['not-an-id'] } })).toMatchObject({ code: 422 });
    expect((await site.admin('POST', '/api/admin/events/replay', { body: { ids: [event.id] } })).data).toEqual({ replayed: 1 });
    const after = await site.admin('GET', '/api/admin/events/dead');
    expect(after.data[0].replayRequestedAt).toEqual(expect.any(String));
    expect((await site.admin('POST', '/api/admin/events/replay', { body: {} })).data).toEqual({ replayed: 1 });

    const audited = await eventually(async () => {
      const { items } = (await site.admin('GET', '/api/admin/audit?action=events.replay')).data as { items: { before: unknown; after: unknown }[] };
      return items.length >= 2 ? items : null;
    });
    expect(audited.map(({ before, after }) => ({ before, after }))).toEqual([
      { before: { ids: 'all' }, after: { replayed: 1 } },
      { before: { ids: [event.id] }, after: { replayed: 1 } },
    ]);
  });
});
