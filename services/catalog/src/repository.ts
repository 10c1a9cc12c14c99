import { and, asc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
import { demoSeed, episodes, playDays, sectionItems, sections, subtitles, tags, videos, videoTags } from './schema.ts';

export type VideoRow = typeof videos.$inferSelect;
export type EpisodeRow = typeof episodes.$inferSelect;
export type SectionRow = typeof sections.$inferSelect;
export type SubtitleRow = typeof subtitles.$inferSelect;

export interface CardRow {
  id: string;
  title: string;
  cover_key: string | null;
  tags: string[];
  episode_count: number;
  play_count: string | number;
}

// A series is listed once it has an episode: an empty shell an operator just created is not.
const LISTED = sql`v.episode_count > 0`;
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

/** The only code that knows the catalog's tables. */
export const catalogRepository = {
  tagList: (db: Executor) => db.select({ id: tags.id, name: tags.name }).from(tags).orderBy(asc(tags.position), asc(tags.id)),

  async tagById(db: Executor, id: string) {
    const [row] = await db.select().from(tags).where(eq(tags.id, id));
    return row ?? null;
  },

  async cards(db: Executor, ids: string[]): Promise<CardRow[]> {
    if (ids.length === 0) return [];
    return queryRows<CardRow>(db, sql`
      select v.id, v.title, v.cover_key, v.episode_count, v.play_count,
             coalesce((select array_agg(t.name order by t.position, t.id)
                         from catalog.video_tags vt join catalog.tags t on t.id = vt.tag_id
                        where vt.video_id = v.id), '{}') as tags
        from catalog.videos v where v.id = any(${sql.param(ids)}::text[])`);
  },

  sectionList: (db: Executor) => db.select().from(sections).orderBy(asc(sections.kind), asc(sections.position), asc(sections.id)),

  async sectionById(db: Executor, id: string): Promise<SectionRow | null> {
    const [row] = await db.select().from(sections).where(eq(sections.id, id));
    return row ?? null;
  },

  /** The first `perSection` listed series of every section, in section order. */
  homepageItems: (db: Executor, perSection: number) =>
    queryRows<{ section_id: string; video_id: string }>(db, sql`
      select section_id, video_id from (
        select si.section_id, si.video_id, si.position,
               row_number() over (partition by si.section_id order by si.position, si.video_id) as rank
          from catalog.section_items si join catalog.videos v on v.id = si.video_id
         where ${LISTED}) ranked
       where rank <= ${perSection} order by section_id, position, video_id`),

  sectionVideoIds: (db: Executor, sectionId: string, offset: number, limit: number) =>
    queryRows<{ id: string }>(db, sql`
      select v.id from catalog.section_items si join catalog.videos v on v.id = si.video_id
       where si.section_id = ${sectionId} and ${LISTED}
       order by si.position, v.id offset ${offset} limit ${limit}`),

  /**
   * A category's listed series, most played first: one walk of video_tags_browse, which holds the
   * series' order beside each tag (migrations/0005). A page needs no cursor: page N skips
   * (N - 1) × size entries of that index, without reading a series.
   */
  tagVideoIds: (db: Executor, tagId: string, offset: number, limit: number) =>
    queryRows<{ id: string }>(db, sql`
      select video_id as id from catalog.video_tags
       where tag_id = ${tagId} and listed
       order by play_count desc, created_at desc, video_id offset ${offset} limit ${limit}`),

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

  async videoById(db: Executor, id: string): Promise<VideoRow | null> {
    const [row] = await db.select().from(videos).where(eq(videos.id, id));
    return row ?? null;
  },

  async videoByTitle(db: Executor, title: string): Promise<VideoRow | null> {
    const [row] = await db.select().from(videos).where(sql`lower(${videos.title}) = lower(${title})`);
    return row ?? null;
  },

  async insertVideo(db: Executor, video: typeof videos.$inferInsert): Promise<VideoRow> {
    const [row] = await db.insert(videos).values(video).returning();
    return row!;
  },

  async setCover(db: Executor, videoId: string, coverKey: string, onlyIfMissing: boolean): Promise<void> {
    await db
      .update(videos)
      .set({ coverKey })
      .where(onlyIfMissing ? and(eq(videos.id, videoId), sql`${videos.coverKey} is null`) : eq(videos.id, videoId));
  },

  /** Takes a cover back, only if it is still this one (an operator may have set another meanwhile). */
  async clearCover(db: Executor, videoId: string, coverKey: string): Promise<void> {
    await db.update(videos).set({ coverKey: null }).where(and(eq(videos.id, videoId), eq(videos.coverKey, coverKey)));
  },

  /** Tags by name, created at the end of the display order when new; answers their ids. */
  async ensureTags(db: Executor, names: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const name of names) {
      const [existing] = await db.select({ id: tags.id }).from(tags).where(sql`lower(${tags.name}) = lower(${name})`);
      if (existing) {
        ids.push(existing.id);
        continue;
      }
      const [row] = await queryRows<{ id: string }>(db, sql`
        insert into catalog.tags (id, name, position)
        values (${slugOf(name)}, ${name}, (select coalesce(max(position), 0) + 1 from catalog.tags))
        returning id`);
      ids.push(row!.id);
    }
    return ids;
  },

  async setVideoTags(db: Executor, videoId: string, tagIds: string[]): Promise<void> {
    await db.delete(videoTags).where(eq(videoTags.videoId, videoId));
    if (tagIds.length) await db.insert(videoTags).values(tagIds.map((tagId) => ({ videoId, tagId }))).onConflictDoNothing();
  },

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

  episodesOf: (db: Executor, videoId: string) => db.select().from(episodes).where(eq(episodes.videoId, videoId)).orderBy(asc(episodes.number)),

  async episodeById(db: Executor, id: string): Promise<EpisodeRow | null> {
    const [row] = await db.select().from(episodes).where(eq(episodes.id, id));
    return row ?? null;
  },

  /** An episode with its series' free episodes and price, in one statement (every unlock asks it). */
  async episodeTerms(db: Executor, id: string) {
    const [row] = await db
      .select({
        episodeId: episodes.id,
        videoId: episodes.videoId,
        number: episodes.number,
        freeEpisodes: videos.freeEpisodes,
        priceCoins: videos.priceCoins,
        status: episodes.status,
      })
      .from(episodes)
      .innerJoin(videos, eq(videos.id, episodes.videoId))
      .where(eq(episodes.id, id));
    return row ?? null;
  },

  async nextEpisodeId(db: Executor, videoId: string, number: number): Promise<string | null> {
    const [row] = await db
      .select({ id: episodes.id })
      .from(episodes)
      .where(and(eq(episodes.videoId, videoId), gt(episodes.number, number)))
      .orderBy(asc(episodes.number))
      .limit(1);
    return row?.id ?? null;
  },

  async nextEpisodeNumber(db: Executor, videoId: string): Promise<number> {
    const [row] = await queryRows<{ next: number }>(db, sql`
      select coalesce(max(number), 0) + 1 as next from catalog.episodes where video_id = ${videoId}`);
    return Number(row!.next);
  },

  /** Adds an episode and counts it on its series; false when that number is taken. */
  async insertEpisode(db: Executor, episode: typeof episodes.$inferInsert): Promise<boolean> {
    const inserted = await db.insert(episodes).values(episode).onConflictDoNothing().returning({ id: episodes.id });
    if (inserted.length === 0) return false;
    await db.update(videos).set({ episodeCount: sql`${videos.episodeCount} + 1` }).where(eq(videos.id, episode.videoId));
    return true;
  },

  /** Gives a planned episode its first upload; false when the episode is not (or no longer) planned. */
  async attachUpload(db: Executor, id: string, upload: { uploadId: string; sourceKey: string; title?: string }): Promise<boolean> {
    const attached = await db
      .update(episodes)
      .set({ status: 'pending', uploadId: upload.uploadId, sourceKey: upload.sourceKey, ...(upload.title ? { title: upload.title } : {}) })
      .where(and(eq(episodes.id, id), eq(episodes.status, 'planned')))
      .returning({ id: episodes.id });
    return attached.length > 0;
  },

  /** Puts a failed (or stuck pending) episode back to pending under a new upload id; false when it changed meanwhile. */
  async requeueEpisode(db: Executor, id: string, fromUploadId: string, toUploadId: string): Promise<boolean> {
    const requeued = await db
      .update(episodes)
      .set({ status: 'pending', uploadId: toUploadId, error: null })
      .where(and(eq(episodes.id, id), eq(episodes.uploadId, fromUploadId), inArray(episodes.status, ['failed', 'pending'])))
      .returning({ id: episodes.id });
    return requeued.length > 0;
  },

  /** Applies a transcode outcome to the episode it was made for, unless a newer upload replaced it. */
  async finishEpisode(
    db: Executor,
    episodeId: string,
    uploadId: string,
    outcome: { status: 'ready'; durationSeconds: number; mediaPrefix: string } | { status: 'failed'; error: string },
  ): Promise<EpisodeRow | null> {
    const changes =
      outcome.status === 'ready'
        ? { status: outcome.status, durationSeconds: outcome.durationSeconds, mediaPrefix: outcome.mediaPrefix, error: null }
        : { status: outcome.status, error: outcome.error };
    const [row] = await db
      .update(episodes)
      .set(changes)
      .where(and(eq(episodes.id, episodeId), eq(episodes.uploadId, uploadId)))
      .returning();
    return row ?? null;
  },

  pendingEpisodes: (db: Executor) => db.select().from(episodes).where(eq(episodes.status, 'pending')).orderBy(asc(episodes.number), asc(episodes.createdAt)),

  async countPending(db: Executor): Promise<number> {
    const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from catalog.episodes where status = 'pending'`);
    return Number(row!.n);
  },

  /** Counts a play when this is the viewer's first record of the episode that day. */
  async recordPlay(db: Executor, userId: string, episodeId: string, videoId: string, day: string): Promise<boolean> {
    const first = await db.insert(playDays).values({ userId, episodeId, day }).onConflictDoNothing().returning({ day: playDays.day });
    if (first.length === 0) return false;
    await db.update(videos).set({ playCount: sql`${videos.playCount} + 1` }).where(eq(videos.id, videoId));
    return true;
  },

  /** Replaces a section (or the carousel) and its ordered series. */
  async putSection(db: Executor, section: typeof sections.$inferInsert, videoIds: string[]): Promise<void> {
    await db
      .insert(sections)
      .values(section)
      .onConflictDoUpdate({ target: sections.id, set: { title: section.title, kind: section.kind, position: section.position } });
    await db.delete(sectionItems).where(eq(sectionItems.sectionId, section.id));
    if (videoIds.length)
      await db.insert(sectionItems).values(videoIds.map((videoId, position) => ({ sectionId: section.id, videoId, position })));
  },

  async demoSeedState(db: Executor): Promise<'absent' | 'started' | 'finished'> {
    const [row] = await db.select().from(demoSeed).where(eq(demoSeed.id, 1));
    return !row ? 'absent' : row.finishedAt ? 'finished' : 'started';
  },

  /** The listed series, most played first: what a sitemap offers crawlers. */
  listedSeriesIds: (db: Executor, limit: number) =>
    queryRows<{ id: string }>(db, sql`
      select v.id from catalog.videos v where ${LISTED}
       order by v.play_count desc, v.created_at desc, v.id limit ${limit}`),

  async hasVideos(db: Executor): Promise<boolean> {
    const [row] = await db.select({ id: videos.id }).from(videos).limit(1);
    return Boolean(row);
  },

  async hasReadyEpisode(db: Executor): Promise<boolean> {
    const [row] = await db.select({ id: episodes.id }).from(episodes).where(eq(episodes.status, 'ready')).limit(1);
    return Boolean(row);
  },

  async markDemoSeed(db: Executor, finished: boolean): Promise<void> {
    await db
      .insert(demoSeed)
      .values({ id: 1 })
      .onConflictDoUpdate({ target: demoSeed.id, set: { finishedAt: finished ? new Date() : null } });
  },

  subtitlesOf: (db: Executor, episodeId: string): Promise<SubtitleRow[]> => db.select().from(subtitles).where(eq(subtitles.episodeId, episodeId)),

  /** The episode, locked until the transaction ends: its subtitle changes happen one at a time. */
  async lockEpisode(db: Executor, id: string): Promise<EpisodeRow | null> {
    const [row] = await db.select().from(episodes).where(eq(episodes.id, id)).for('update');
    return row ?? null;
  },

  /** Adds or replaces the subtitles of one language; answers the storage key of the replaced file, if any. */
  async putSubtitle(db: Executor, row: typeof subtitles.$inferInsert): Promise<string | null> {
    const [previous] = await db
      .select({ storageKey: subtitles.storageKey })
      .from(subtitles)
      .where(and(eq(subtitles.episodeId, row.episodeId), eq(subtitles.lang, row.lang)));
    await db
      .insert(subtitles)
      .values(row)
      .onConflictDoUpdate({
        target: [subtitles.episodeId, subtitles.lang],
        set: { storageKey: row.storageKey, bytes: row.bytes, cues: row.cues, uploadedAt: new Date() },
      });
    return previous?.storageKey ?? null;
  },

  /** Removes the subtitles of one language; answers the storage key of their file, or null when there were none. */
  async deleteSubtitle(db: Executor, episodeId: string, lang: SubtitleRow['lang']): Promise<string | null> {
    const [row] = await db
      .delete(subtitles)
      .where(and(eq(subtitles.episodeId, episodeId), eq(subtitles.lang, lang)))
      .returning({ storageKey: subtitles.storageKey });
    return row?.storageKey ?? null;
  },
};

/** A readable id from a name: "Billionaire Romance" → "billionaire-romance". */
export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 48);
  return slug || 'item';
}
