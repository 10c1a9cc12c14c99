import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { queryRows, type Database, type Executor } from '@cliffhanger/platform';
import { openMigratedDatabase } from '@cliffhanger/platform/testing';
import { catalogModule } from '../src/index.ts';
import { episodeRepository as episodeRepo } from '../src/episode-repository.ts';
import { rankingsRepository as rankings } from '../src/rankings-repository.ts';
import { catalogRepository as repo } from '../src/repository.ts';
import { searchRepository as searchRepo } from '../src/search-repository.ts';
import { SEARCH_CATEGORIES, seededId, seedSearchCatalog } from './search-catalog.ts';

// Search answers exactly what its rules say (stated below as one plain statement that reads every
// series), whether a tier is read from the full-text indexes or walked in popularity order; category
// pages answer what the query before issue 17 answered. On a catalog of 2,000 series plus a few
// written through the repository, on PGlite and on PostgreSQL alike.

const SERIES = 2_000;

/**
 * Search's rules as one statement: every word of 4 letters or more not in the dictionary becomes
 * its most alike word there; series matching the keyword as typed come first (title holds the
 * phrase, then all its words, then anywhere), then those matching only the corrected keyword, in
 * the same three tiers; each tier most played, then newest, then id.
 */
const searchByRules = (db: Executor, keyword: string) =>
  queryRows<{ id: string }>(db, sql`
    with typed as (select catalog.fold(${keyword}) as words),
    corrected as (
      select coalesce(string_agg(coalesce(
               (select d.word from catalog.search_terms d
                 where length(token.part[1]) >= 4 and similarity(d.word, token.part[1]) >= 0.3
                 order by d.word = token.part[1] desc, similarity(d.word, token.part[1]) desc, d.series desc, d.word limit 1),
               token.part[1]) || token.part[2], '' order by token.n), '') as words
        from typed, regexp_matches(typed.words, '([[:alnum:]]*)([^[:alnum:]]*)', 'g') with ordinality as token(part, n)),
    q as (
      select websearch_to_tsquery('english', typed.words) as query, phraseto_tsquery('english', typed.words) as phrase,
             websearch_to_tsquery('english', corrected.words) as fixed, phraseto_tsquery('english', corrected.words) as fixed_phrase
        from typed, corrected)
    select v.id from catalog.videos v, q
     where v.episode_count > 0 and (v.search_document @@ q.query or v.search_document @@ q.fixed)
     order by case when v.search_document @@ q.query then
                     case when v.title_document @@ q.phrase then 1 when v.title_document @@ q.query then 2 else 3 end
                   else case when v.title_document @@ q.fixed_phrase then 4 when v.title_document @@ q.fixed then 5 else 6 end end,
              v.play_count desc, v.created_at desc, v.id`);

/** A category as it was: the series joined and sorted. */
const categoryAsBefore = (db: Executor, tagId: string) =>
  queryRows<{ id: string }>(db, sql`
    select v.id from catalog.video_tags vt join catalog.videos v on v.id = vt.video_id
     where vt.tag_id = ${tagId} and v.episode_count > 0
     order by v.play_count desc, v.created_at desc, v.id`);

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
const dialect = new PgDialect();

/**
 * Every plan node of the statements `run` sends that read the catalog's series or categories, from
 * EXPLAIN (ANALYZE, FORMAT JSON): they still run, in their transaction, with its settings. Other
 * statements (the search's settings) run as they are.
 */
async function plannedNodes(run: (db: Executor) => Promise<unknown>): Promise<PlanNode[]> {
  const nodes: PlanNode[] = [];
  const explaining = (executor: Executor): Executor =>
    new Proxy(executor, {
      get(target, property) {
        if (property === 'transaction') return (fn: (tx: Executor) => Promise<unknown>) => target.transaction((tx) => fn(explaining(tx as unknown as Executor)));
        if (property === 'execute')
          return async (query: SQL) => {
            if (!/\bfrom catalog\.(videos|video_tags)\b/.test(dialect.sqlToQuery(query).sql)) return target.execute(query);
            const result = (await target.execute(sql`explain (analyze, format json) ${query}`)) as unknown as { rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[] };
            nodes.push(...nodesOf(result.rows[0]!['QUERY PLAN'][0].Plan));
            return { rows: [] };
          };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  await run(explaining(database.db));
  return nodes;
}
const readsSeries = (node: PlanNode) => node['Relation Name'] === 'videos' && node['Actual Loops'] > 0;

/** [offset, limit] pairs the service asks for: first pages, page boundaries, a deep page, one past the end. */
const PAGES: [number, number][] = [[0, 21], [20, 21], [40, 21], [0, 51], [50, 51], [7, 8], [300, 21], [0, 1]];

const KEYWORDS = [
  // words of titles, categories and descriptions, alone and together
  'billionaire', 'romance', 'ceo', 'cold ceo', 'heiress revenge', 'scarlet pianist', 'secret baby', 'family secret',
  "Runaway Heiress's Revenge", 'the vow of the cold ceo', 'brides', 'FIANCÉE', 'fiancee', 'cafe amelie', 'twin',
  // typos: alone, and beside full-text matches that do not fill a page
  'bilionaire', 'alpah king', 'heirres', 'bilionaire bride', 'billionaire bride', 'romence', 'vampyre',
  // web search syntax
  '"secret baby"', 'revenge -wolf', 'wolf or vampire', 'a & b | !c <-> d:*',
  // stop words, punctuation and hostile text
  'the', 'a', 'or', '-', '(((', '%', '_', '%_%', "'", "''", '"', '\\', "'; drop table catalog.videos; --",
  '💔 revenge', 'x'.repeat(100), 'billionaire '.repeat(8), 'qwzxv', '', '   ',
];

let database: Database;

/** Writes a series the way the operator's calls do: series, tags, search columns, then an episode. */
async function writeSeries(series: { id: string; title: string; description: string; tags: string[]; listed: boolean; plays?: number }) {
  await database.transaction(async (tx) => {
    await repo.insertVideo(tx, { id: series.id, title: series.title, description: series.description, playCount: series.plays ?? 0 });
    await repo.setVideoTags(tx, series.id, await repo.ensureTags(tx, series.tags));
    await searchRepo.refreshSearch(tx, series.id);
  });
  if (series.listed) await episodeRepo.insertEpisode(database.db, { id: `${series.id}-ep1`, videoId: series.id, number: 1, title: 'Episode 1', status: 'planned' });
}

beforeAll(async () => {
  database = await openMigratedDatabase(catalogModule);
  await writeSeries({ id: 'contract-bride', title: "The Billionaire's Contract Bride", description: 'A marriage of convenience with a cold CEO.', tags: ['Romance', 'CEO'], listed: true, plays: 40 });
  await writeSeries({ id: 'crown-of-thorns', title: 'Crown of Thorns', description: 'A maid becomes the secret weapon of a billionaire heir.', tags: ['Palace'], listed: true, plays: 40 });
  await writeSeries({ id: 'cafe-amelie', title: 'Café Amélie', description: 'A pastry chef in Paris and the critic who ruined her.', tags: ['Romance'], listed: true });
  await writeSeries({ id: 'alpha-king', title: "Alpha King's Rejected Mate", description: 'The pack turned her away; the king did not.', tags: ['Werewolf'], listed: true });
  await writeSeries({ id: 'billionaire-shell', title: 'Billionaire Shell', description: 'Announced, with no episode yet.', tags: ['Billionaire'], listed: false });
  await seedSearchCatalog(database, 0, SERIES);
}, 120_000);

afterAll(() => database?.close());

describe('search in tiers', () => {
  it('answers every page as its rules say, whether a tier is sorted from the full-text index or walked in popularity order', async () => {
    for (const keyword of KEYWORDS) {
      const all = ids(await searchByRules(database.db, keyword));
      for (const [offset, limit] of PAGES) {
        // 1: every tier with a match walks; the default: every tier of this small catalog is sorted.
        for (const sortedUpTo of [undefined, 1, 40]) {
          const page = ids(await searchRepo.searchVideoIds(database.db, keyword, offset, limit, sortedUpTo));
          expect(page, `"${keyword.slice(0, 30)}" offset ${offset} limit ${limit} sorted up to ${sortedUpTo}`).toEqual(all.slice(offset, offset + limit));
        }
      }
    }
  }, 300_000);

  it('finds what a viewer looks for: the title first, then categories and descriptions, then what a typo meant', async () => {
    const page = async (keyword: string, limit = 50) => ids(await searchRepo.searchVideoIds(database.db, keyword, 0, limit));
    // The title match comes before the description match, though not more played; the unlisted
    // series never shows.
    const billionaire = await page('billionaire', 500);
    expect(billionaire.indexOf('contract-bride')).toBeGreaterThanOrEqual(0);
    expect(billionaire.indexOf('contract-bride')).toBeLessThan(billionaire.indexOf('crown-of-thorns'));
    expect(billionaire).not.toContain('billionaire-shell');
    // A whole title typed finds that series first, though others hold its words.
    for (const i of [4, 5, 6, 7]) {
      const [series] = await queryRows<{ title: string }>(database.db, sql`select title from catalog.videos where id = ${seededId(i)}`);
      expect((await page(series!.title)).slice(0, 1), series!.title).toEqual([seededId(i)]);
    }
    expect(await page('cafe amelie')).toEqual(['cafe-amelie']);
    // Typos: in a phrase, and of a word many series share (they all come, title matches first).
    expect((await page('alpah king')).slice(0, 1)).toEqual(['alpha-king']);
    expect((await page('cafe amelei')).slice(0, 1)).toEqual(['cafe-amelie']);
    const typo = await page('bilionaire', 500);
    expect(typo.length).toBeGreaterThan(100);
    expect(typo.indexOf('contract-bride')).toBeLessThan(typo.indexOf('crown-of-thorns'));
    // A word found as typed is not "corrected" away: its matches come before any look-alike's.
    expect((await page('pastry')).slice(0, 1)).toEqual(['cafe-amelie']);
    for (const keyword of ['', '   ', '(((', '%', '_', 'qwzxv', 'the']) expect(await page(keyword), keyword).toEqual([]);
  });

  it('reads the series only through indexes, a rare tier from the full-text index and a common one in popularity order', async () => {
    for (const keyword of ['alpah king', 'bilionaire', 'romance', 'midnight secretary', 'The Return of the Wandering Baron', '(((', '']) {
      for (const sortedUpTo of [undefined, 1]) {
        const nodes = await plannedNodes((db) => searchRepo.searchVideoIds(db, keyword, 0, 21, sortedUpTo));
        const read = nodes.filter(readsSeries);
        if (keyword.trim() === '' || keyword === '(((') expect(read, keyword).toEqual([]);
        else expect(read.length, keyword).toBeGreaterThan(0);
        expect(read.map((node) => node['Node Type']), keyword).not.toContain('Seq Scan');
        const walked = read.filter((node) => node['Index Name'] === 'videos_listed_popular').length;
        if (sortedUpTo === undefined) expect(walked, `${keyword} sorted`).toBe(0);
        else if (keyword !== '(((' && keyword !== '') expect(walked, `${keyword} walked`).toBeGreaterThan(0);
      }
    }
  });

  it('leaves the connection as it was: sequential scans and sorts back on', async () => {
    await searchRepo.searchVideoIds(database.db, 'bilionaire', 0, 5);
    const [row] = await queryRows<{ seqscan: string; sort: string }>(database.db, sql`select current_setting('enable_seqscan') as seqscan, current_setting('enable_sort') as sort`);
    expect(row).toEqual({ seqscan: 'on', sort: 'on' });
  });

  it('corrects typos against the words of titles and categories as they are now', async () => {
    const terms = async () => (await queryRows<{ word: string; series: number }>(database.db, sql`select word, series from catalog.search_terms where word in ('zeppelin', 'quokka')`)).map((row) => [row.word, Number(row.series)]);
    await writeSeries({ id: 'zeppelin', title: 'Zeppelin Heiress', description: 'Above the clouds.', tags: ['Romance'], listed: true });
    expect(await terms()).toEqual([['zeppelin', 1]]);
    expect(ids(await searchRepo.searchVideoIds(database.db, 'zepelin', 0, 5))).toEqual(['zeppelin']);
    await database.db.execute(sql`update catalog.videos set title = 'Quokka Heiress' where id = 'zeppelin'`);
    await searchRepo.refreshSearch(database.db, 'zeppelin');
    expect(await terms()).toEqual([['quokka', 1]]);
    expect(ids(await searchRepo.searchVideoIds(database.db, 'zepelin', 0, 5))).toEqual([]);
    expect(ids(await searchRepo.searchVideoIds(database.db, 'quoka', 0, 5))).toEqual(['zeppelin']);
    await database.db.execute(sql`delete from catalog.videos where id = 'zeppelin'`);
    expect(await terms()).toEqual([]);
  });
});

describe('categories on their own index', () => {
  const tagIds = ['romance', 'ceo', 'palace', 'werewolf', 'billionaire', ...SEARCH_CATEGORIES.map((name) => name.toLowerCase().replace(/ /g, '-'))];

  async function expectSameAsBefore() {
    for (const tagId of new Set(tagIds)) {
      const all = ids(await categoryAsBefore(database.db, tagId));
      expect(all.length, tagId).toBeGreaterThan(0);
      for (const [offset, limit] of PAGES) expect(ids(await repo.tagVideoIds(database.db, tagId, offset, limit)), `${tagId} ${offset}`).toEqual(all.slice(offset, offset + limit));
    }
  }

  it('pages every category exactly as the join before it', async () => {
    await expectSameAsBefore();
  });

  it('can read a page of a category, first or deep, from its index without sorting', async () => {
    // A category of 2,000 series is small enough for the planner to rather sort it (of 100,000 it
    // walks the index unasked): sorting priced out, the index must still answer the order.
    for (const offset of [0, 120]) {
      const nodes = await plannedNodes((db) =>
        db.transaction(async (tx) => {
          await tx.execute(sql`set local enable_sort = off`);
          return repo.tagVideoIds(tx, 'romance', offset, 21);
        }),
      );
      expect(nodes.map((node) => node['Node Type']), `offset ${offset}`).not.toContain('Sort');
      expect(nodes.some((node) => node['Index Name'] === 'video_tags_browse'), `offset ${offset}`).toBe(true);
    }
  });

  it('follows the series as plays are counted, episodes added and series created', async () => {
    // A counted play, a large jump by any writer, a date moved, an unlisted series getting its
    // first episode, a new series: each category's order follows.
    await rankings.countPlays(database.db, [{ userId: 'viewer-1', episodeId: 'some-episode', videoId: seededId(1), time: '2026-01-02T10:00:00.000Z' }]);
    await database.db.execute(sql`update catalog.videos set play_count = play_count + 1000000 where id = ${seededId(5)}`);
    await database.db.execute(sql`update catalog.videos set created_at = created_at + interval '10 years' where id = ${seededId(7)}`);
    await episodeRepo.insertEpisode(database.db, { id: `${seededId(49)}-ep1`, videoId: seededId(49), number: 1, title: 'Episode 1', status: 'planned' });
    await writeSeries({ id: 'late-arrival', title: 'The Late Arrival', description: 'Added after the rest.', tags: ['Romance', 'Revenge'], listed: true, plays: 150000 });
    await expectSameAsBefore();
    expect(ids(await repo.tagVideoIds(database.db, 'romance', 0, 50))).toContain('late-arrival');
    const listedNow = (await queryRows<{ tag_id: string }>(database.db, sql`select tag_id from catalog.video_tags where video_id = ${seededId(49)}`)).map((row) => row.tag_id);
    for (const tagId of listedNow) expect(ids(await categoryAsBefore(database.db, tagId)), tagId).toContain(seededId(49));
  });
});
