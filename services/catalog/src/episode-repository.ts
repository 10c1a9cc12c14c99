import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
import { episodes, subtitles, videos } from './schema.ts';

/**
 * The SQL of episodes and their subtitles, beside the catalog's other repositories (repository.ts
 * names them). It reads or writes a series only beside its episode: insertEpisode counts the new
 * episode on it, episodeTerms reads its terms of sale in the same statement.
 */

export type EpisodeRow = typeof episodes.$inferSelect;
export type SubtitleRow = typeof subtitles.$inferSelect;

// Where renumbered episodes wait for their new numbers (renumberEpisodes).
const RENUMBER_ASIDE = 1_000_000;

export const episodeRepository = {
  episodesOf: (db: Executor, videoId: string) => db.select().from(episodes).where(eq(episodes.videoId, videoId)).orderBy(asc(episodes.number)),

  async episodeByNumber(db: Executor, videoId: string, number: number): Promise<EpisodeRow | null> {
    const [row] = await db.select().from(episodes).where(and(eq(episodes.videoId, videoId), eq(episodes.number, number)));
    return row ?? null;
  },

  /**
   * Gives each episode of `numbers` its number. (video_id, number) is unique row by row, not at the
   * statement's end: the episodes step aside to numbers no episode has (an API number is at most
   * 10,000) before they take their new ones.
   */
  async renumberEpisodes(db: Executor, videoId: string, numbers: Map<string, number>): Promise<void> {
    if (numbers.size === 0) return;
    const ids = [...numbers.keys()];
    await db.execute(sql`
      update catalog.episodes set number = number + ${RENUMBER_ASIDE} where video_id = ${videoId} and id = any(${sql.param(ids)}::text[])`);
    await db.execute(sql`
      update catalog.episodes e set number = n.number
        from unnest(${sql.param(ids)}::text[], ${sql.param(ids.map((id) => numbers.get(id)!))}::int[]) as n(id, number)
       where e.id = n.id and e.video_id = ${videoId}`);
  },

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
      // A hidden series is not on sale.
      .where(and(eq(episodes.id, id), eq(videos.hidden, false)));
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

  async hasReadyEpisode(db: Executor): Promise<boolean> {
    const [row] = await db.select({ id: episodes.id }).from(episodes).where(eq(episodes.status, 'ready')).limit(1);
    return Boolean(row);
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
