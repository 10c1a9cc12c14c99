import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notAVideo, startCatalogSite, type Site } from './site.ts';

let site: Site;
const ids: Record<string, string> = {};

const search = async (keyword: string, extra = '') => {
  const answer = await site.call('GET', `/api/homepage/query?keyword=${encodeURIComponent(keyword)}${extra}`);
  expect(answer.code, keyword.slice(0, 40)).toBe(200);
  return answer.data as { items: { id: string; title: string }[]; hasMore: boolean };
};
const titles = async (keyword: string) => (await search(keyword)).items.map((card) => card.title);

beforeAll(async () => {
  site = await startCatalogSite();
  const catalog = [
    { title: "The Billionaire's Contract Bride", description: 'A marriage of convenience with a cold CEO.', tags: ['Romance', 'CEO'] },
    { title: 'Crown of Thorns', description: 'A maid becomes the secret weapon of a billionaire heir.', tags: ['Palace'] },
    { title: 'Café Amélie', description: 'A pastry chef in Paris and the critic who ruined her.', tags: ['Romance'] },
    { title: "Alpha King's Rejected Mate", description: 'The pack turned her away; the king did not.', tags: ['Werewolf'] },
    { title: 'Silent Vows', description: 'Nothing here about wolves.', tags: ['Rebirth'] },
  ];
  for (const series of catalog) {
    ids[series.title] = await site.series(series);
    await site.upload(ids[series.title]!, notAVideo);
  }
}, 60_000);

afterAll(() => site?.close());

describe('search', () => {
  it('ranks a title match above the same word in a description', async () => {
    expect(await titles('billionaire')).toEqual(["The Billionaire's Contract Bride", 'Crown of Thorns']);
  });

  it('matches tags as well as titles and descriptions', async () => {
    expect(await titles('werewolf')).toEqual(["Alpha King's Rejected Mate"]);
    expect(await titles('pastry')).toEqual(['Café Amélie']);
  });

  it('ignores case and accents', async () => {
    for (const keyword of ['cafe amelie', 'CAFÉ', 'Amelie']) expect(await titles(keyword), keyword).toEqual(['Café Amélie']);
  });

  it('tolerates a typo in a title', async () => {
    expect((await titles('bilionaire'))[0]).toBe("The Billionaire's Contract Bride");
    expect(await titles('alpah king')).toContain("Alpha King's Rejected Mate");
  });

  it('finds stemmed words: plural and possessive forms match', async () => {
    expect(await titles('brides')).toEqual(["The Billionaire's Contract Bride"]);
  });

  it('answers an empty page when nothing matches', async () => {
    expect(await search('zzzzqqqq')).toMatchObject({ items: [], hasMore: false });
  });

  it('pages search results', async () => {
    const first = await search('a', '&size=1');
    expect(first.items.length).toBeLessThanOrEqual(1);
    // Page by page, the same series in the same order as one large page.
    const whole = (await search('billionaire', '&size=50')).items.map((card) => card.title);
    const pages = [await search('billionaire', '&size=1&page=1'), await search('billionaire', '&size=1&page=2'), await search('billionaire', '&size=1&page=3')];
    expect(pages.map((page) => [page.items.map((card) => card.title), page.hasMore])).toEqual([[[whole[0]], true], [[whole[1]], false], [[], false]]);
  });

  it('answers an empty list, not an error, for a keyword that is empty or only wildcards, quotes or punctuation', async () => {
    for (const keyword of ['', '   ', '%', '_', '%_%', "'", "''", '"', '(((', '-', '*']) {
      expect(await search(keyword), JSON.stringify(keyword)).toMatchObject({ items: [], hasMore: false });
    }
  });

  it('cuts a very long keyword instead of refusing it', async () => {
    expect((await titles('billionaire '.repeat(500)))[0]).toBe("The Billionaire's Contract Bride");
    expect(await titles(`silent ${'%'.repeat(2_000)}`)).toEqual(['Silent Vows']);
  });

  it('treats hostile keywords as plain text', async () => {
    const hostile = [
      "'; drop table catalog.videos; --",
      '"unterminated',
      '100%',
      '%_%',
      '\\',
      '\\\\x00',
      'a & b | !c <-> d:*',
      '(((',
      '-',
      'or',
      '💔 revenge',
      'x'.repeat(5_000),
      'billionaire '.repeat(500),
    ];
    for (const keyword of hostile) await search(keyword);
    expect((await titles("billionaire's'"))[0]).toBe("The Billionaire's Contract Bride");
    expect((await site.call('GET', '/api/homepage/query?keyword=a&keyword=b')).code).toBe(422);
    // A NUL cannot be stored or searched: the edge refuses it with the field named.
    expect(await site.call('GET', `/api/homepage/query?keyword=${encodeURIComponent('a\u0000b')}`)).toMatchObject({ code: 422, data: { fields: { keyword: 'Must not contain NUL characters' } } });
    expect(await titles('Silent')).toEqual(['Silent Vows']);
  });
});
