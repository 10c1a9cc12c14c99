import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
// A series is listed once it has an episode and is not hidden, as everywhere in the catalog.
import { LISTED } from './repository.ts';

/**
 * The SQL of search (migrations/0006: the search documents, catalog.fold, the search_terms
 * dictionary), beside the catalog's other repositories (repository.ts names them).
 */

// Below this a typed word and a word of the catalog share too few trigrams to be the same word
// mistyped (pg_trgm's own default; "alpah" and "alpha" share a third of theirs).
const TYPO_SIMILARITY = 0.3;

// A tier with fewer matches than this is read whole from the full-text indexes and sorted; a
// larger one is walked in popularity order (searchVideoIds).
const TIER_SORTED = 500;

interface ParsedKeyword {
  query: string;
  phrase: string;
  corrected_query: string;
  corrected_phrase: string;
}

/**
 * The folded keyword (`typed.words`) with each misspelt word replaced: a word of 4 letters or more
 * becomes the dictionary's nearest word (catalog.search_terms: the words of titles and
 * categories), when they share enough trigrams (TYPO_SIMILARITY; the more used word wins a tie). A
 * word of the dictionary is its own nearest. Separators stay, so web-search syntax survives. One
 * nearest-neighbour walk of a small table per word: the same cost at any catalog size.
 */
const correctedKeyword = sql`(
  select coalesce(string_agg(coalesce(nearest.word, split.word) || split.gap, '' order by token.n), '') as corrected
    from typed, regexp_matches(typed.words, '([[:alnum:]]*)([^[:alnum:]]*)', 'g') with ordinality as token(part, n)
    cross join lateral (select token.part[1] as word, token.part[2] as gap) split
    left join lateral (
      select near.word from (
        select d.word, d.series, similarity(d.word, split.word) as likeness from catalog.search_terms d
         where length(split.word) >= 4
         order by d.word <-> split.word limit 5) near
       where near.likeness >= ${TYPO_SIMILARITY}
       order by near.word = split.word desc, near.likeness desc, near.series desc, near.word limit 1) nearest on true)`;

/**
 * The filters of search's tiers 1-3 for one parsed keyword (searchVideoIds); none for a keyword
 * without a word to search. Each is a whole filter, not "and not an earlier tier": a tier's first
 * page × n matches, less the ones of earlier tiers, are still its first matches in order.
 */
function tierFilters(query: string, phrase: string): SQL[] {
  if (query === '') return [];
  const anywhere = sql`v.search_document @@ ${query}::tsquery`;
  // A "-word" must be missing from the categories and description too, not only from the title.
  const andAnywhere = query.includes('!') ? sql` and ${anywhere}` : sql``;
  const filters = phrase === '' ? [] : [sql`v.title_document @@ ${phrase}::tsquery${andAnywhere}`];
  // One word is its own phrase.
  if (phrase !== query) filters.push(sql`v.title_document @@ ${query}::tsquery${andAnywhere}`);
  return [...filters, anywhere];
}

export const searchRepository = {
  /**
   * Search in tiers, each most played first (then newest, then id); a series shows in its first
   * tier only:
   *   1. its title holds the keyword as a phrase (the whole title typed, or a run of its words);
   *   2. its title holds every word of the keyword, in any order;
   *   3. the keyword matches anywhere: title, categories, description (stemmed, accent- and
   *      case-folded; web-search syntax: "quoted phrase", -excluded, or);
   *   4-6. the same three for the keyword with its misspelt words corrected (correctedKeyword).
   * No score is computed for every match. A tier with fewer than TIER_SORTED matches is read from
   * the full-text indexes and sorted (at most TIER_SORTED rows); a larger one is read in order
   * from videos_listed_popular and stops at the page, after about page × catalog ÷ matches rows.
   * Which of the two is decided by counting, not by the planner's estimate, which takes a word it
   * has no statistics for (a typo) as common and would walk the whole catalog for nothing.
   * (`sortedUpTo` is TIER_SORTED but in tests, which check both ways answer the same.) Sequential
   * scans, sorts but of a rare tier, parallel workers and JIT compilation (which the disabled
   * plans' costs would trigger) are off for the transaction: every read goes through an index. The keyword
   * only ever travels as a bind parameter, and websearch_to_tsquery never fails on syntax.
   */
  searchVideoIds: (db: Executor, keyword: string, offset: number, limit: number, sortedUpTo = TIER_SORTED) =>
    db.transaction(async (tx) => {
      // Parsed (and corrected) first, the keyword reaches the search as constants, which the
      // planner can match against its statistics.
      const [parsed] = await queryRows<ParsedKeyword>(tx, sql`
        with typed as (select catalog.fold(${keyword}) as words)
        select set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true),
               set_config('max_parallel_workers_per_gather', '0', true), set_config('jit', 'off', true),
               websearch_to_tsquery('english', words)::text as query, phraseto_tsquery('english', words)::text as phrase,
               websearch_to_tsquery('english', corrected)::text as corrected_query, phraseto_tsquery('english', corrected)::text as corrected_phrase
          from typed, ${correctedKeyword} as c`);
      const { query, phrase, corrected_query: correctedQuery, corrected_phrase: correctedPhrase } = parsed!;
      const filters = [...tierFilters(query, phrase), ...(correctedQuery === query ? [] : tierFilters(correctedQuery, correctedPhrase))];
      if (filters.length === 0) return [];
      const end = offset + limit;
      const order = sql`play_count desc, created_at desc, id`;
      // A tier's listed matches as the full-text indexes find them: read up to `sortedUpTo` to count
      // them, and if fewer, sorted from what was read (a materialized CTE is read once).
      const matches = filters.map((filter, tier) => sql`${sql.raw(`tier_${tier}`)} as materialized (
        select v.id, v.play_count, v.created_at from catalog.videos v where ${LISTED} and ${filter})`);
      // A common tier walks videos_listed_popular; `is true` keeps the full-text indexes (which
      // know no order) out of that branch.
      const tiers = filters.map((filter, tier) => {
        const common = sql`(select count(*) from (select from ${sql.raw(`tier_${tier}`)} limit ${sortedUpTo}) counted) = ${sortedUpTo}`;
        return sql`(select ${tier} as tier, * from ${sql.raw(`tier_${tier}`)} where not ${common} order by ${order} limit ${end})
                   union all
                   (select ${tier}, v.id, v.play_count, v.created_at from catalog.videos v
                     where ${common} and ${LISTED} and (${filter}) is true order by ${order} limit ${end})`;
      });
      return queryRows<{ id: string }>(tx, sql`
        with ${sql.join(matches, sql`, `)}
        select id from (select distinct on (id) * from (${sql.join(tiers, sql` union all `)}) found order by id, tier) first
         order by tier, ${order} offset ${offset} limit ${limit}`);
    }),

  /** Rebuilds what search reads for one series, after its title, description or tags changed. */
  async refreshSearch(db: Executor, videoId: string): Promise<void> {
    await db.execute(sql`
      update catalog.videos v set
        search_document = setweight(to_tsvector('english', catalog.fold(v.title)), 'A')
                       || setweight(to_tsvector('english', catalog.fold(t.names)), 'B')
                       || setweight(to_tsvector('english', catalog.fold(v.description)), 'C'),
        search_words = catalog.fold(v.title || ' ' || t.names)
        from (select coalesce(string_agg(tags.name, ' '), '') as names
                from catalog.video_tags vt join catalog.tags tags on tags.id = vt.tag_id
               where vt.video_id = ${videoId}) t
       where v.id = ${videoId}`);
  },
};
