import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
import { demoSeed, sectionItems, sections, tags, videos, videoTags } from './schema.ts';

export type VideoRow = typeof videos.$inferSelect;
export type SectionRow = typeof sections.$inferSelect;

export interface CardRow {
  id: string;
  title: string;
  cover_key: string | null;
  tags: string[];
  episode_count: number;
  play_count: string | number;
  hidden: boolean;
}

/** A series as the operators' list shows it: its card, terms and state. */
export interface AdminVideoRow extends CardRow {
  description: string;
  free_episodes: number;
  price_coins: number;
  failed_episodes: number;
  created_at: Date | string;
}

export interface AdminVideoFilter {
  /** Part of the title, any case. */
  query?: string;
  tagId?: string;
  hidden?: boolean;
  /** Only series with (true) or without (false) a failed episode. */
  failed?: boolean;
}

// A series is listed once it has an episode and is not hidden: an empty shell an operator just
// created is not, nor one an operator hid (migrations/0007; its partial indexes say the same).
export const LISTED = sql`v.episode_count > 0 and not v.hidden`;

/**
 * The SQL of series, tags, sections, play counts and the demo seed. The rest of the catalog's
 * tables have their own repositories beside it: episodes and subtitles (episode-repository.ts),
 * search (search-repository.ts), the rankings and the feed (rankings-repository.ts).
 */
export const catalogRepository = {
  tagList: (db: Executor) => db.select({ id: tags.id, name: tags.name }).from(tags).orderBy(asc(tags.position), asc(tags.id)),

  async tagById(db: Executor, id: string) {
    const [row] = await db.select().from(tags).where(eq(tags.id, id));
    return row ?? null;
  },

  async cards(db: Executor, ids: string[]): Promise<CardRow[]> {
    if (ids.length === 0) return [];
    return queryRows<CardRow>(db, sql`
      select v.id, v.title, v.cover_key, v.episode_count, v.play_count, v.hidden,
             coalesce((select array_agg(t.name order by t.position, t.id)
                         from catalog.video_tags vt join catalog.tags t on t.id = vt.tag_id
                        where vt.video_id = v.id), '{}') as tags
        from catalog.videos v where v.id = any(${sql.param(ids)}::text[])`);
  },

  sectionList: (db: Executor) => db.select().from(sections).orderBy(asc(sections.kind), asc(sections.position), asc(sections.id)),

  sectionVideoIdsAll: async (db: Executor, sectionId: string): Promise<string[]> =>
    (await db.select({ videoId: sectionItems.videoId }).from(sectionItems).where(eq(sectionItems.sectionId, sectionId)).orderBy(asc(sectionItems.position))).map(
      (row) => row.videoId,
    ),

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

  async videoById(db: Executor, id: string): Promise<VideoRow | null> {
    const [row] = await db.select().from(videos).where(eq(videos.id, id));
    return row ?? null;
  },

  /** The series, locked until the transaction ends: its edits happen one at a time. */
  async lockVideo(db: Executor, id: string): Promise<VideoRow | null> {
    const [row] = await db.select().from(videos).where(eq(videos.id, id)).for('update');
    return row ?? null;
  },

  async updateVideo(db: Executor, id: string, changes: Partial<Pick<VideoRow, 'title' | 'description' | 'freeEpisodes' | 'priceCoins' | 'hidden'>>): Promise<void> {
    if (Object.keys(changes).length) await db.update(videos).set(changes).where(eq(videos.id, id));
  },

  /**
   * The operators' series list, newest first: hidden ones too, with each one's failed episodes
   * counted. The title is matched as typed (`%` and `_` are no wildcards).
   */
  adminVideos(db: Executor, filter: AdminVideoFilter, offset: number, limit: number): Promise<AdminVideoRow[]> {
    const conditions: SQL[] = [sql`true`];
    if (filter.query) conditions.push(sql`v.title ilike ${`%${filter.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
    if (filter.tagId) conditions.push(sql`exists (select from catalog.video_tags vt where vt.video_id = v.id and vt.tag_id = ${filter.tagId})`);
    if (filter.hidden !== undefined) conditions.push(sql`v.hidden = ${filter.hidden}`);
    if (filter.failed !== undefined) conditions.push(sql`(f.failed > 0) = ${filter.failed}`);
    return queryRows<AdminVideoRow>(db, sql`
      select v.id, v.title, v.description, v.cover_key, v.free_episodes, v.price_coins, v.episode_count, v.play_count,
             v.hidden, v.created_at, f.failed as failed_episodes,
             coalesce((select array_agg(t.name order by t.position, t.id)
                         from catalog.video_tags vt join catalog.tags t on t.id = vt.tag_id
                        where vt.video_id = v.id), '{}') as tags
        from catalog.videos v
        cross join lateral (select count(*)::int as failed from catalog.episodes e where e.video_id = v.id and e.status = 'failed') f
       where ${sql.join(conditions, sql` and `)}
       order by v.created_at desc, v.id desc offset ${offset} limit ${limit}`);
  },

  async failedEpisodesOf(db: Executor, videoId: string): Promise<number> {
    const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from catalog.episodes where video_id = ${videoId} and status = 'failed'`);
    return Number(row!.n);
  },

  /** Whether `error` is the database refusing a second series of one title (the unique index `videos_title`). */
  isTitleTaken(error: unknown): boolean {
    const cause = (error as { cause?: unknown })?.cause ?? error;
    const { code, constraint } = cause as { code?: string; constraint?: string };
    return code === '23505' && constraint === 'videos_title';
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

  async markDemoSeed(db: Executor, finished: boolean): Promise<void> {
    await db
      .insert(demoSeed)
      .values({ id: 1 })
      .onConflictDoUpdate({ target: demoSeed.id, set: { finishedAt: finished ? new Date() : null } });
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
