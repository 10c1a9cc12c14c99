// Search at catalog scale: the statement behind GET /api/homepage/query?keyword= (the catalog
// search repository's searchVideoIds, one page of 20, on the pool the service uses) against a primary-key
// lookup of a series (videoById) on the same database, in turns, at 1,000 and then 100,000 series
// of a scratch PostgreSQL database (BENCH_DATABASE_URL, an admin connection; dropped at the end).
// The keywords are what viewers type: a whole title, two words of one, a typo in a phrase, a typo
// of a common word, a category. Prints one line: the median search over the median lookup at each
// size (goal <= 10 at both), and the slowest keyword's median at the larger size.
import { migrate, openPostgres, type Database } from '@cliffhanger/platform';
import { catalogMigrations } from '@cliffhanger/catalog';
// The repositories are the catalog's own; the bench measures their queries, not copies of them.
import { catalogRepository as repo } from '../services/catalog/src/repository.ts';
import { searchRepository } from '../services/catalog/src/search-repository.ts';
import { seededId, seedSearchCatalog } from '../services/catalog/test/search-catalog.ts';
import { adminStatement } from './lib.ts';

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const KEYWORDS = ['The Return of the Wandering Baron', 'midnight secretary', 'wandring baron', 'bilionaire', 'romance'];
const SIZES = [1_000, 100_000];
const ROUNDS = 9;
// A round is every keyword once, each followed by a lookup; past this budget a size stops at 3 rounds.
const BUDGET_MS = 60_000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const count = (value: number) => value.toLocaleString('en-US');

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const admin = (statement: string, url = adminUrl) => adminStatement(url, statement);

/** Median search and lookup times on the catalog as it is now, and each keyword's median search. */
async function measure(database: Database, size: number) {
  const searches: number[] = [];
  const lookups: number[] = [];
  const byKeyword = new Map<string, number[]>(KEYWORDS.map((keyword) => [keyword, []]));
  const search = (keyword: string) => searchRepository.searchVideoIds(database.db, keyword, 0, 21);
  const lookup = (i: number) => repo.videoById(database.db, seededId((i * 7919) % size));
  for (const keyword of KEYWORDS) await Promise.all([search(keyword), lookup(keyword.length)]);
  const started = Date.now();
  for (let round = 0; round < ROUNDS && (round < 3 || Date.now() - started < BUDGET_MS); round++) {
    for (const [k, keyword] of KEYWORDS.entries()) {
      const took = await timed(() => search(keyword));
      searches.push(took);
      byKeyword.get(keyword)!.push(took);
      lookups.push(await timed(() => lookup(round * KEYWORDS.length + k)));
    }
  }
  const [slowest, slowestMs] = [...byKeyword].map(([keyword, times]) => [keyword, median(times)] as const).sort((a, b) => b[1] - a[1])[0]!;
  return { search: median(searches), lookup: median(lookups), slowest, slowestMs };
}

const name = `cliffhanger_bench_search_${process.pid}`;
try {
  await admin('select 1');
} catch (error) {
  console.error(`search: no PostgreSQL at ${adminUrl.replace(/\/\/[^@/]*@/, '//')} (${(error as Error).message}); set BENCH_DATABASE_URL to an admin connection`);
  process.exit(1);
}
await admin(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const database = await openPostgres(url.toString(), 2);
try {
  await migrate(database, 'catalog', catalogMigrations);
  const parts: string[] = [];
  let seeded = 0;
  let last: Awaited<ReturnType<typeof measure>> | undefined;
  let met = true;
  for (const size of SIZES) {
    await seedSearchCatalog(database, seeded, size);
    seeded = size;
    // What autovacuum does in production after a large batch: statistics, and the full-text
    // indexes' pending entries merged (until then every search reads them all).
    await admin('vacuum analyze catalog.videos, catalog.video_tags, catalog.search_terms', url.toString());
    last = await measure(database, size);
    met &&= last.search <= 10 * last.lookup;
    parts.push(`${count(size)} series ${ms(last.search)} ms / primary-key lookup ${ms(last.lookup)} ms = ${(last.search / last.lookup).toFixed(1)}`);
  }
  console.log(`search: ${parts.join(', ')} (goal <= 10 at both${met ? '' : '; not met'}; slowest at ${count(seeded)}: "${last!.slowest}" ${ms(last!.slowestMs)} ms)`);
} finally {
  await database.close();
  await admin(`drop database if exists ${name} with (force)`);
}
