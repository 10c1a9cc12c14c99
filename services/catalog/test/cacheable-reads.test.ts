import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notAVideo, startCatalogSite, type Site } from './site.ts';

// Catalog reads through the gateway (TARGET=all): ETags, 304s, and who may cache what. The proxied
// mode's header passing is proven in services/platform/test/proxy.test.ts.
let site: Site;
let series: string;

beforeAll(async () => {
  site = await startCatalogSite();
  series = await site.series({ title: 'Cached Hearts', description: 'Twice read, once sent.', tags: ['Romance'], freeEpisodes: 1, priceCoins: 30 });
  await site.upload(series, notAVideo);
  await site.admin('PUT', '/api/admin/sections/featured', { body: { title: 'Featured Videos', kind: 'carousel', position: 0, videoIds: [series] } });
}, 120_000);

afterAll(() => site?.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(site.url + path, { headers });

describe('reads that cost nothing twice', () => {
  it.each(['/api/homepage', '/api/tag', '/api/homepage/query?tagId=romance', '/api/homepage/query?keyword=cached', '/api/homepage/query?sectionId=new'])(
    '%s carries a strong ETag of its body, may sit in a CDN, and answers 304 to a matching If-None-Match',
    async (path) => {
      const first = await get(path);
      expect(first.status).toBe(200);
      const tag = first.headers.get('etag')!;
      expect(tag).toMatch(/^"[\w-]{20,}"$/);
      expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+, s-maxage=\d+$/);
      expect((await first.json()).code).toBe(200);

      const again = await get(path, { 'if-none-match': tag });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      // A CDN that compressed it may hand the tag back weakened: the same bytes all the same.
      expect((await get(path, { 'if-none-match': `W/${tag}` })).status).toBe(304);
      expect((await get(path, { 'if-none-match': '"something-else"' })).status).toBe(200);
    },
  );

  it('a changed homepage has another ETag: the old one answers the new body', async () => {
    const before = (await get('/api/homepage')).headers.get('etag')!;
    await site.admin('PUT', '/api/admin/sections/asian-stories', { body: { title: 'Asian Stories', position: 1, videoIds: [series] } });
    const after = await get('/api/homepage', { 'if-none-match': before });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before);
    expect((await after.json()).data.sections.map((section: { title: string }) => section.title)).toContain('Asian Stories');
  });

  it('what depends on the viewer (a series with its locks, their continue list) is private: revalidated, never in a shared cache', async () => {
    const token = await site.guest();
    for (const path of [`/api/video?id=${series}`, '/api/homepage/query?sectionId=continue']) {
      const first = await get(path, { 'x-user-token': token });
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toMatch(/^private\b/);
      expect(first.headers.get('cache-control')).not.toMatch(/s-maxage|public/);
      const again = await get(path, { 'x-user-token': token, 'if-none-match': first.headers.get('etag')! });
      expect(again.status).toBe(304);
    }
    for (const path of ['/api/user', '/api/user/history']) expect((await get(path, { 'x-user-token': token })).headers.get('cache-control')).toBe('private, no-store');
  });
});
