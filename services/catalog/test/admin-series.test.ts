import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@cliffhanger/platform';
import { eventually } from '@cliffhanger/platform/testing';
import { setRoleByEmail } from '@cliffhanger/user';
import { adminOf, notAVideo, startCatalogSite, type Site } from './site.ts';

// The operators' series calls (issue 29): the list, editing, hiding, reordering, and the audit of
// every catalog change. Episodes are planned, and put in a state by SQL where a transcode would
// only cost time.
let site: Site;
beforeAll(async () => {
  site = await startCatalogSite();
}, 60_000);
afterAll(() => site?.close());

const password = 'correct horse 1';
const unique = () => randomUUID().slice(0, 8);

/** A member holding `role`, signed in after the grant. */
async function member(role: Role) {
  const email = `${role}-${unique()}@example.com`;
  const registered = await site.call('POST', '/api/user/register', { body: { email, password, confirmPassword: password } });
  expect(registered.code).toBe(200);
  if (role !== 'viewer') await setRoleByEmail(site.platform.database, email, role);
  const login = await site.call('POST', '/api/user/login', { body: { email, password } });
  return { id: registered.data.id as string, token: login.headers.get('x-user-token')! };
}

/** Puts an episode in a state without a transcode. */
async function setStatus(episodeId: string, status: 'ready' | 'failed') {
  await site.platform.database.db.execute(sql`
    update catalog.episodes set status = ${status}, upload_id = coalesce(upload_id, 'test-upload'), source_key = coalesce(source_key, 'uploads/none'),
           media_prefix = ${status === 'ready' ? 'episodes/none' : null}, error = ${status === 'failed' ? 'not a video file' : null}
     where id = ${episodeId}`);
}

async function plannedSeries(title: string, episodes: number, body: Record<string, unknown> = {}) {
  const id = await site.series({ title, ...body });
  await adminOf(site).planEpisodes(id, episodes);
  return id;
}

/** The audit entries of `action` on `target`, once the user service stored them. */
const audited = (action: string, target: string) =>
  eventually(async () => {
    const page = await site.admin('GET', `/api/admin/audit?action=${action}&size=50`);
    const items = (page.data.items as { target: string }[]).filter((item) => item.target === target);
    return items.length ? items : null;
  });

describe('who may call', () => {
  it('nobody gets 401, a viewer 403, an operator through, on the list, the edit and the reorder', async () => {
    const id = await plannedSeries(`Guarded ${unique()}`, 2);
    const [viewer, operator] = await Promise.all([member('viewer'), member('operator')]);
    const calls: [string, string, unknown][] = [
      ['GET', '/api/admin/videos', undefined],
      ['PATCH', `/api/admin/videos/${id}`, { priceCoins: 70 }],
      ['PUT', `/api/admin/videos/${id}/episodes/order`, { episodeIds: [`${id}-ep2`, `${id}-ep1`] }],
    ];
    for (const [method, path, body] of calls) {
      expect((await site.call(method, path, { body })).code, `${method} ${path} nobody`).toBe(401);
      expect((await site.call(method, path, { body, token: viewer.token })).code, `${method} ${path} viewer`).toBe(403);
      expect((await site.call(method, path, { body, headers: { authorization: 'Bearer wrong-token-wrong-token' } })).code).toBe(403);
      expect((await site.call(method, path, { body, token: operator.token })).code, `${method} ${path} operator`).toBe(200);
    }
    // The operator's own id is the audit's actor.
    const [entry] = await audited('series.update', `video:${id}`);
    expect(entry).toMatchObject({ actor: operator.id, before: { priceCoins: 50 }, after: { priceCoins: 70 } });
  });
});

describe('the series list', () => {
  it('searches titles, filters by tag, visibility and failed episodes, and pages', async () => {
    const word = `Zephyr${unique()}`;
    const shown = await plannedSeries(`${word} Rising`, 2, { tags: ['Revenge'] });
    const hidden = await plannedSeries(`${word} Hidden`, 1, { tags: ['Romance'], hidden: true });
    const broken = await plannedSeries(`The ${word.toLowerCase()} Fall`, 2, { tags: ['Revenge'] });
    await setStatus(`${broken}-ep2`, 'failed');
    const ids = async (query: string) => ((await site.admin('GET', `/api/admin/videos?query=${word}${query}`)).data.items as { id: string }[]).map((video) => video.id);

    // Newest first, hidden ones included, any case.
    expect(await ids('')).toEqual([broken, hidden, shown]);
    expect(await ids('&tag=revenge')).toEqual([broken, shown]);
    expect(await ids('&visibility=hidden')).toEqual([hidden]);
    expect(await ids('&visibility=published')).toEqual([broken, shown]);
    expect(await ids('&failed=true')).toEqual([broken]);
    expect(await ids('&failed=false&tag=revenge')).toEqual([shown]);
    const [first] = (await site.admin('GET', `/api/admin/videos?query=${word}&failed=true`)).data.items;
    expect(first).toMatchObject({ id: broken, tags: ['Revenge'], hidden: false, failedEpisodes: 1, episodeCount: 2, freeEpisodes: 5, priceCoins: 50 });
    expect(first.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    const page1 = await site.admin('GET', `/api/admin/videos?query=${word}&size=2`);
    expect(page1.data).toMatchObject({ page: 1, size: 2, hasMore: true });
    const page2 = await site.admin('GET', `/api/admin/videos?query=${word}&size=2&page=2`);
    expect(page2.data).toMatchObject({ items: [{ id: shown }], hasMore: false });
    // A wildcard is a character to find, not a pattern.
    expect((await site.admin('GET', '/api/admin/videos?query=%25%25%25_')).data.items).toEqual([]);
  });

  it('refuses a bad filter with 422 naming it', async () => {
    for (const [query, field] of [
      ['visibility=secret', 'visibility'],
      ['failed=maybe', 'failed'],
      ['size=500', 'size'],
      ['page=0', 'page'],
      ['query=a%00b', 'query'],
      [`query=${'x'.repeat(201)}`, 'query'],
    ]) {
      const answer = await site.admin('GET', `/api/admin/videos?${query}`);
      expect(answer.code, query).toBe(422);
      expect(Object.keys(answer.data.fields), query).toEqual([field]);
    }
  });
});

describe('editing a series', () => {
  it('changes its terms, tags and search words, and answers the series', async () => {
    const id = await plannedSeries(`Draft ${unique()}`, 3, { tags: ['Romance'] });
    const title = `Final Cut ${unique()}`;
    const edited = await site.admin('PATCH', `/api/admin/videos/${id}`, {
      body: { title, description: 'A new telling', tags: ['Thriller', 'Mafia'], freeEpisodes: 1, priceCoins: 90 },
    });
    expect(edited.data).toMatchObject({ id, title, description: 'A new telling', tags: ['Thriller', 'Mafia'], freeEpisodes: 1, priceCoins: 90, hidden: false });
    const page = await site.call('GET', `/api/video?id=${id}`);
    expect(page.data).toMatchObject({ title, freeEpisodes: 1, priceCoins: 90, tags: ['Thriller', 'Mafia'] });
    expect(page.data.episodes.map((episode: { locked: boolean }) => episode.locked)).toEqual([false, true, true]);
    const found = await site.call('GET', `/api/homepage/query?keyword=${encodeURIComponent(title)}`);
    expect(found.data.items.map((card: { id: string }) => card.id)).toContain(id);
    // Its old title finds it no more.
    const [entry] = await audited('series.update', `video:${id}`);
    expect(entry).toMatchObject({ actor: 'token', before: { tags: ['Romance'], freeEpisodes: 5 }, after: { title, tags: ['Thriller', 'Mafia'], freeEpisodes: 1, priceCoins: 90 } });
  });

  it('hides a series from viewers everywhere and shows it again', async () => {
    const title = `Vanishing ${unique()}`;
    const id = await plannedSeries(title, 2, { tags: ['Romance'] });
    await setStatus(`${id}-ep1`, 'ready');
    expect((await site.admin('PUT', `/api/admin/sections/hide-test`, { body: { title: 'Hide test', position: 50, videoIds: [id] } })).code).toBe(200);
    const visible = async () => {
      const [series, search, section, category, episode] = await Promise.all([
        site.call('GET', `/api/video?id=${id}`),
        site.call('GET', `/api/homepage/query?keyword=${encodeURIComponent(title)}`),
        site.call('GET', '/api/homepage/query?sectionId=hide-test'),
        site.call('GET', '/api/homepage/query?tagId=romance&size=50'),
        site.call('GET', `/api/video/episode?id=${id}-ep1`),
      ]);
      const has = (answer: typeof search) => answer.data.items.some((card: { id: string }) => card.id === id);
      return { series: series.code, search: has(search), section: has(section), category: has(category), episode: episode.code };
    };
    expect(await visible()).toEqual({ series: 200, search: true, section: true, category: true, episode: 200 });
    expect((await site.admin('PATCH', `/api/admin/videos/${id}`, { body: { hidden: true } })).data.hidden).toBe(true);
    expect(await visible()).toEqual({ series: 404, search: false, section: false, category: false, episode: 404 });
    // Operators still see it, and it is not on sale.
    expect((await site.admin('GET', `/api/admin/videos/${id}`)).data).toMatchObject({ hidden: true, episodeCount: 2 });
    const viewer = await site.guest();
    expect((await site.call('POST', '/api/video/unlock', { token: viewer, body: { episodeId: `${id}-ep2` } })).code).toBe(404);
    await site.admin('PATCH', `/api/admin/videos/${id}`, { body: { hidden: false } });
    expect(await visible()).toEqual({ series: 200, search: true, section: true, category: true, episode: 200 });
  });

  it('refuses bad input with 422 naming the field, an unknown series with 404', async () => {
    const id = await plannedSeries(`Strict ${unique()}`, 1);
    const other = `Taken ${unique()}`;
    await site.series({ title: other });
    const cases: [unknown, string][] = [
      [{ title: '' }, 'title'],
      [{ title: '   ' }, 'title'],
      [{ title: other.toUpperCase() }, 'title'],
      [{ title: 'Bad\u0000title' }, 'title'],
      [{ title: 'x'.repeat(201) }, 'title'],
      [{ description: 7 }, 'description'],
      [{ description: 'nul \u0000 inside' }, 'description'],
      [{ tags: 'Romance' }, 'tags'],
      [{ tags: [''] }, 'tags.0'],
      [{ tags: Array.from({ length: 21 }, (_, i) => `Tag ${i}`) }, 'tags'],
      [{ freeEpisodes: -1 }, 'freeEpisodes'],
      [{ freeEpisodes: 1.5 }, 'freeEpisodes'],
      [{ priceCoins: '50' }, 'priceCoins'],
      [{ priceCoins: 1_000_001 }, 'priceCoins'],
      [{ hidden: 'yes' }, 'hidden'],
      [{ published: true }, 'body'],
      [{}, 'body'],
      [[], 'body'],
    ];
    for (const [body, field] of cases) {
      const answer = await site.admin('PATCH', `/api/admin/videos/${id}`, { body });
      expect(answer.code, JSON.stringify(body)).toBe(422);
      expect(Object.keys(answer.data.fields), JSON.stringify(body)).toEqual([field]);
    }
    expect((await site.admin('PATCH', `/api/admin/videos/${id}`, { raw: '{"title": "Broken', headers: { 'content-type': 'application/json' } })).status).toBeLessThan(500);
    // The same title in another case is its own: a rename to it is fine.
    const series = await site.admin('GET', `/api/admin/videos/${id}`);
    expect((await site.admin('PATCH', `/api/admin/videos/${id}`, { body: { title: series.data.title.toUpperCase() } })).code).toBe(200);
    expect((await site.admin('PATCH', '/api/admin/videos/no-such-series', { body: { priceCoins: 1 } })).code).toBe(404);
    expect((await site.admin('POST', '/api/admin/videos', { body: { title: 'Nul\u0000' } })).code).toBe(422);
    expect((await site.admin('GET', '/api/admin/videos/a%00b')).code).toBe(422);
  });
});

describe('reordering episodes', () => {
  it('gives each episode the place of the one it replaces, in one go, and uploads fill places by number', async () => {
    const id = await plannedSeries(`Shuffled ${unique()}`, 3);
    const order = [`${id}-ep3`, `${id}-ep1`, `${id}-ep2`];
    const answer = await site.admin('PUT', `/api/admin/videos/${id}/episodes/order`, { body: { episodeIds: order } });
    expect(answer.data.map((episode: { id: string; number: number }) => [episode.id, episode.number])).toEqual([
      [`${id}-ep3`, 1],
      [`${id}-ep1`, 2],
      [`${id}-ep2`, 3],
    ]);
    const page = await site.call('GET', `/api/video?id=${id}`);
    expect(page.data.episodes.map((episode: { id: string }) => episode.id)).toEqual(order);
    // Episode 1 is now the one first planned as 3: an upload for number 1 fills it.
    const upload = await site.upload(id, notAVideo, '?number=1');
    expect(upload.data).toMatchObject({ id: `${id}-ep3`, number: 1 });
    const [entry] = await audited('episodes.reorder', `video:${id}`);
    expect(entry).toMatchObject({ before: [`${id}-ep1`, `${id}-ep2`, `${id}-ep3`], after: order });
  });

  it('refuses a list that is not the series, and moving an episode on sale', async () => {
    const id = await plannedSeries(`Fixed ${unique()}`, 3, { freeEpisodes: 1 });
    const put = (episodeIds: unknown) => site.admin('PUT', `/api/admin/videos/${id}/episodes/order`, { body: { episodeIds } });
    for (const episodeIds of [[`${id}-ep1`, `${id}-ep2`], [`${id}-ep1`, `${id}-ep1`, `${id}-ep2`], [`${id}-ep1`, `${id}-ep2`, 'elsewhere-ep1'], 'ep1', [1, 2, 3]]) {
      const answer = await put(episodeIds);
      expect(answer.code, JSON.stringify(episodeIds)).toBe(422);
      expect(Object.keys(answer.data.fields)[0]).toMatch(/^episodeIds/);
    }
    expect((await site.admin('PUT', '/api/admin/videos/nope/episodes/order', { body: { episodeIds: [] } })).code).toBe(404);
    await setStatus(`${id}-ep3`, 'ready');
    expect((await put([`${id}-ep3`, `${id}-ep2`, `${id}-ep1`])).code).toBe(409);
    // Around it, the others move: the free first one and a planned one.
    expect((await put([`${id}-ep2`, `${id}-ep1`, `${id}-ep3`])).code).toBe(200);
    const episodes = (await site.admin('GET', `/api/admin/videos/${id}`)).data.episodes as { id: string }[];
    expect(episodes.map((episode) => episode.id)).toEqual([`${id}-ep2`, `${id}-ep1`, `${id}-ep3`]);
  });
});

describe('the audit of content changes', () => {
  it('writes who did what to which series, episode or section, before and after', async () => {
    const title = `Audited ${unique()}`;
    const created = await site.admin('POST', '/api/admin/videos', { body: { title, tags: ['Romance'], priceCoins: 40 } });
    const id = created.data.video.id as string;
    await adminOf(site).planEpisodes(id, 2);
    await site.admin('PUT', `/api/admin/videos/${id}/cover`, { raw: Buffer.from('not really a jpeg'), headers: { 'content-type': 'image/jpeg' } });
    const vtt = 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello\n';
    await site.admin('PUT', `/api/admin/episodes/${id}-ep1/subtitles/es`, { raw: vtt, headers: { 'content-type': 'text/vtt' } });
    await site.admin('DELETE', `/api/admin/episodes/${id}-ep1/subtitles/es`);
    await site.admin('PUT', `/api/admin/sections/audit-${id}`, { body: { title: 'Audited', position: 60, videoIds: [id] } });
    await setStatus(`${id}-ep2`, 'failed');
    expect((await site.admin('POST', `/api/admin/episodes/${id}-ep2/retranscode`)).code).toBe(200);
    const upload = await site.upload(id, notAVideo, '?number=1&title=Pilot');
    expect(upload.code).toBe(200);

    expect((await audited('series.create', `video:${id}`))[0]).toMatchObject({ actor: 'token', before: null, after: { title, tags: ['Romance'], priceCoins: 40, hidden: false } });
    expect((await audited('series.cover', `video:${id}`))[0]).toMatchObject({ before: null, after: { cover: expect.stringMatching(/^\/media\/public\/covers\//) } });
    expect((await audited('subtitles.put', `episode:${id}-ep1`))[0]).toMatchObject({ before: null, after: { lang: 'es', cues: 1 } });
    expect((await audited('subtitles.remove', `episode:${id}-ep1`))[0]).toMatchObject({ before: { lang: 'es', cues: 1 }, after: null });
    expect((await audited('section.put', `section:audit-${id}`))[0]).toMatchObject({ before: null, after: { title: 'Audited', videoIds: [id] } });
    expect((await audited('episode.retranscode', `episode:${id}-ep2`))[0]).toMatchObject({ before: { status: 'failed', error: 'not a video file' }, after: { status: 'pending' } });
    expect((await audited('episode.upload', `episode:${id}-ep1`))[0]).toMatchObject({ after: { videoId: id, number: 1, title: 'Pilot' } });
    // Answering an existing title creates nothing and audits nothing.
    await site.admin('POST', '/api/admin/videos', { body: { title } });
    expect(await audited('series.create', `video:${id}`)).toHaveLength(1);
  });
});
