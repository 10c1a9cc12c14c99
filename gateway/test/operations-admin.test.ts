import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startSite, type Site } from '@cliffhanger/platform/testing';
import { transcodeEpisodeJob } from '@cliffhanger/transcoder';
import { registry } from '../src/registry.ts';

let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: registry.modules, env: { DEMO: '0' } });
});
afterAll(() => site?.close());

describe("the admin API of the console's operations page", () => {
  it('lists the transcode queue by state and page, for operators only', async () => {
    // Delayed a minute: the jobs wait while the test reads them, whatever the worker beside them does.
    const ids = [];
    for (const n of [1, 2, 3])
      ids.push(await site.platform.queue.enqueue(transcodeEpisodeJob, { episodeId: `e${n}`, sourceKey: `k${n}`, uploadId: `u${n}` }, { delayMs: 60_000 }));

    expect((await site.call('GET', '/api/admin/jobs')).code).toBe(401);
    const first = await site.admin('GET', '/api/admin/jobs?state=waiting&size=2');
    expect(first).toMatchObject({ code: 200, data: { queue: 'transcode-episode', state: 'waiting', page: 1, size: 2, total: 3, hasMore: true } });
    const second = await site.admin('GET', '/api/admin/jobs?state=waiting&size=2&page=2');
    expect(second.data).toMatchObject({ total: 3, hasMore: false });
    const listed = [...first.data.items, ...second.data.items];
    expect(listed.map((job: { id: string }) => job.id).sort()).toEqual(ids.sort());
    expect(listed[0]).toMatchObject({ status: 'waiting', attempts: 0, progress: 0, lastError: null, data: { episodeId: expect.any(String) } });
    expect((await site.admin('GET', '/api/admin/jobs?state=failed')).data).toMatchObject({ items: [], total: 0 });

    expect(await site.admin('GET', '/api/admin/jobs?state=finished')).toMatchObject({ code: 422, data: { fields: { state: 'state must be waiting, active or failed' } } });
    expect(await site.admin('GET', '/api/admin/jobs?queue=mail')).toMatchObject({ code: 422, data: { fields: { queue: 'queue must be one of: transcode-episode' } } });
  });

  it("answers each part's state and every module's, for operators only", async () => {
    expect((await site.call('GET', '/api/admin/health')).code).toBe(401);
    const health = await eventually(async () => {
      const answer = await site.admin('GET', '/api/admin/health');
      return answer.data.services.every((service: { state: string }) => service.state === 'up') ? answer : null;
    });
    expect(health.data.parts).toEqual([
      { name: 'database', kind: site.platform.database.kind, state: 'up' },
      { name: 'queue', kind: site.platform.queue.kind, state: 'up' },
      { name: 'bus', kind: site.platform.bus.kind, state: 'up' },
    ]);
    expect(health.data.services.map((service: { name: string }) => service.name)).toEqual(registry.modules.map((module) => module.name));
    expect(health.data.services[0]).toEqual({ name: registry.modules[0]!.name, runs: 'here', state: 'up', circuit: null });
  });
});
