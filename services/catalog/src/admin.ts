import { randomBytes, randomUUID } from 'node:crypto';
import {
  appendEvent,
  auditAdminCall,
  Conflict,
  Invalid,
  NotFound,
  pageOf,
  type AdminCall,
  type Database,
  type EventBus,
  type Executor,
  type MediaStorage,
  type Page,
  type RequestContext,
} from '@cliffhanger/platform';
import { episodeRepository as episodeRepo, type EpisodeRow } from './episode-repository.ts';
import { mediaUrlOf } from './grants.ts';
import type { TranscodeProgress, Transcoder } from './ports.ts';
import { catalogRepository as repo, slugOf, type AdminVideoFilter, type AdminVideoRow, type VideoRow } from './repository.ts';
import { searchRepository as searchRepo } from './search-repository.ts';
import { createSubtitleAdmin } from './subtitle-admin.ts';

export interface SeriesInput {
  title: string;
  description?: string;
  tags?: string[];
  freeEpisodes?: number;
  priceCoins?: number;
  hidden?: boolean;
  /** A chosen id (the demo catalog's are readable and stable); otherwise one is made from the title. */
  id?: string;
}

/** What an operator may change of a series; what is left out stays. */
export interface SeriesChanges {
  title?: string;
  description?: string;
  tags?: string[];
  freeEpisodes?: number;
  priceCoins?: number;
  hidden?: boolean;
}

export interface AdminVideo {
  id: string;
  title: string;
  description: string;
  tags: string[];
  cover: string;
  freeEpisodes: number;
  priceCoins: number;
  episodeCount: number;
  /** Hidden from viewers (anywhere: lists, search, its page); published otherwise. */
  hidden: boolean;
  /** Episodes whose transcode failed. */
  failedEpisodes: number;
  createdAt: string;
}

export interface AdminEpisode {
  id: string;
  videoId: string;
  number: number;
  title: string;
  /** "processing" while a transcoder works on it. */
  status: 'planned' | 'pending' | 'processing' | 'ready' | 'failed';
  progress: number;
  durationSeconds: number;
  error: string | null;
}

export interface SectionInput {
  title: string;
  kind: 'carousel' | 'section';
  position: number;
  videoIds: string[];
}

export interface CatalogAdminDeps {
  database: Database;
  bus: EventBus;
  storage: MediaStorage;
  transcoder: Transcoder;
  /** Called after every change viewers should see at once. */
  onChange: () => void;
}

const TITLE_TAKEN = { title: 'Another series has this title' };

/** A series as the audit log keeps it before and after a change: what an operator edits. */
const auditedTerms = (video: VideoRow, tags: string[]) => ({
  title: video.title,
  description: video.description,
  tags,
  freeEpisodes: video.freeEpisodes,
  priceCoins: video.priceCoins,
  hidden: video.hidden,
});

const tagsOf = async (db: Executor, videoId: string) => (await repo.cards(db, [videoId]))[0]?.tags ?? [];

function presentRow(row: AdminVideoRow): AdminVideo {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    tags: row.tags,
    cover: row.cover_key ? mediaUrlOf(row.cover_key) : '',
    freeEpisodes: row.free_episodes,
    priceCoins: row.price_coins,
    episodeCount: Number(row.episode_count),
    hidden: row.hidden,
    failedEpisodes: Number(row.failed_episodes),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** Early episodes first: they are what viewers open, and a new series needs its first one most. */
export const transcodePriorityOf = (episodeNumber: number) => Math.min(episodeNumber, 1000);

/**
 * What an operator does: add and edit series and episodes, arrange the homepage, follow transcodes.
 * A change made through the admin API passes its `AdminCall` and is audited in the change's own
 * transaction; the demo seeder's setup passes none (nobody made it).
 */
export function createCatalogAdmin(deps: CatalogAdminDeps) {
  const { database, bus, storage, transcoder } = deps;

  async function present(video: VideoRow): Promise<AdminVideo> {
    const [tags, failedEpisodes] = await Promise.all([tagsOf(database.db, video.id), repo.failedEpisodesOf(database.db, video.id)]);
    return {
      id: video.id,
      title: video.title,
      description: video.description,
      tags,
      cover: video.coverKey ? mediaUrlOf(video.coverKey) : '',
      freeEpisodes: video.freeEpisodes,
      priceCoins: video.priceCoins,
      episodeCount: video.episodeCount,
      hidden: video.hidden,
      failedEpisodes,
      createdAt: video.createdAt.toISOString(),
    };
  }

  async function presentEpisode(episode: EpisodeRow): Promise<AdminEpisode> {
    const progress: TranscodeProgress | null =
      episode.status === 'pending' && episode.uploadId ? await transcoder.progressOf({ episodeId: episode.id, uploadId: episode.uploadId }) : null;
    return {
      id: episode.id,
      videoId: episode.videoId,
      number: episode.number,
      title: episode.title,
      status: progress?.state === 'active' ? 'processing' : episode.status,
      progress: episode.status === 'ready' ? 100 : (progress?.percent ?? 0),
      durationSeconds: episode.durationSeconds,
      error: episode.error ?? (progress?.state === 'dead' ? progress.lastError : null),
    };
  }

  /**
   * The id of the episode at `number`, or the one a new episode there gets. After a reorder an
   * id no longer says its episode's number, but the ids' numbers are still the numbers in use
   * (reorderEpisodes keeps the set), so a free number's id is free too.
   */
  const slotIdOf = async (videoId: string, number: number) => (await episodeRepo.episodeByNumber(database.db, videoId, number))?.id ?? `${videoId}-ep${number}`;

  const admin = {
    /** putSubtitles, removeSubtitles, subtitlesOf: an episode's WebVTT files. */
    ...createSubtitleAdmin({ database, storage }),

    /** The operators' series list, newest first, hidden ones included. */
    async list(filter: AdminVideoFilter, page: number, size: number): Promise<Page<AdminVideo>> {
      return pageOf((await repo.adminVideos(database.db, filter, (page - 1) * size, size + 1)).map(presentRow), page, size);
    },

    /** Creates a series, or answers the one that already has this title (titles are unique). */
    async createSeries(input: SeriesInput, by?: AdminCall): Promise<{ video: AdminVideo; created: boolean }> {
      const result = await database.transaction(async (tx) => {
        const existing = await repo.videoByTitle(tx, input.title);
        if (existing) return { video: existing, created: false };
        const id = input.id ?? `${slugOf(input.title)}-${randomBytes(3).toString('hex')}`;
        if (await repo.videoById(tx, id)) throw new Conflict('A series with this id exists');
        const video = await repo.insertVideo(tx, {
          id,
          title: input.title,
          description: input.description ?? '',
          ...(input.freeEpisodes === undefined ? {} : { freeEpisodes: input.freeEpisodes }),
          ...(input.priceCoins === undefined ? {} : { priceCoins: input.priceCoins }),
          ...(input.hidden === undefined ? {} : { hidden: input.hidden }),
        });
        await repo.setVideoTags(tx, id, await repo.ensureTags(tx, input.tags ?? []));
        await searchRepo.refreshSearch(tx, id);
        if (by) await auditAdminCall(tx, by, { action: 'series.create', target: `video:${id}`, before: null, after: auditedTerms(video, await tagsOf(tx, id)) });
        return { video, created: true };
      });
      deps.onChange();
      return { video: await present(result.video), created: result.created };
    },

    /** Changes a series' terms under its row lock; its search document follows its title, description and tags. */
    async updateSeries(id: string, changes: SeriesChanges, by: AdminCall): Promise<AdminVideo> {
      try {
        await database.transaction(async (tx) => {
          const video = await repo.lockVideo(tx, id);
          if (!video) throw new NotFound('No such video');
          if (changes.title !== undefined) {
            const holder = await repo.videoByTitle(tx, changes.title);
            if (holder && holder.id !== id) throw new Invalid(TITLE_TAKEN);
          }
          const before = auditedTerms(video, await tagsOf(tx, id));
          const { tags, ...columns } = changes;
          await repo.updateVideo(tx, id, columns);
          if (tags) await repo.setVideoTags(tx, id, await repo.ensureTags(tx, tags));
          if (changes.title !== undefined || changes.description !== undefined || tags) await searchRepo.refreshSearch(tx, id);
          const after = auditedTerms((await repo.videoById(tx, id))!, await tagsOf(tx, id));
          await auditAdminCall(tx, by, { action: 'series.update', target: `video:${id}`, before, after });
        });
      } catch (error) {
        // Two renames to one title at once: the later one meets the unique index.
        if (repo.isTitleTaken(error)) throw new Invalid(TITLE_TAKEN);
        throw error;
      }
      deps.onChange();
      return admin.series(id);
    },

    /**
     * Puts a series' episodes in this order: each takes the place (number) of the one at its position
     * before, so the set of numbers stays, and an upload for a number fills the episode at that place.
     * An episode on sale (ready, past the free ones) keeps its place: viewers' unlocks are kept by
     * number for the series page (the unlock service's watchableNumbers), so moving it would show
     * a bought episode locked and another unlocked. All in one transaction, under the series' lock.
     */
    async reorderEpisodes(videoId: string, episodeIds: string[], by: AdminCall): Promise<AdminEpisode[]> {
      await database.transaction(async (tx) => {
        const video = await repo.lockVideo(tx, videoId);
        if (!video) throw new NotFound('No such video');
        const current = await episodeRepo.episodesOf(tx, videoId);
        const known = new Set(current.map((episode) => episode.id));
        const stranger = episodeIds.find((id) => !known.has(id));
        if (stranger) throw new Invalid({ episodeIds: `Not an episode of this series: ${stranger}` });
        if (new Set(episodeIds).size !== episodeIds.length) throw new Invalid({ episodeIds: 'Name each episode once' });
        if (episodeIds.length !== current.length) throw new Invalid({ episodeIds: 'Name every episode of the series, in their new order' });
        const placeOf = new Map(episodeIds.map((id, index) => [id, current[index]!.number]));
        const moved = current.filter((episode) => placeOf.get(episode.id) !== episode.number);
        const onSale = moved.find((episode) => episode.status === 'ready' && episode.number > video.freeEpisodes);
        if (onSale) throw new Conflict(`Episode ${onSale.number} is on sale and keeps its place: viewers may have unlocked it`);
        await episodeRepo.renumberEpisodes(tx, videoId, new Map(moved.map((episode) => [episode.id, placeOf.get(episode.id)!])));
        await auditAdminCall(tx, by, { action: 'episodes.reorder', target: `video:${videoId}`, before: current.map((episode) => episode.id), after: episodeIds });
      });
      deps.onChange();
      return admin.episodesOf(videoId);
    },

    async series(id: string): Promise<AdminVideo> {
      const video = await repo.videoById(database.db, id);
      if (!video) throw new NotFound('No such video');
      return present(video);
    },

    /** Sets a series' cover from a local image file; covers are public, under a fresh key each time. */
    async setCover(videoId: string, file: string, by?: AdminCall): Promise<AdminVideo> {
      if (!(await repo.videoById(database.db, videoId))) throw new NotFound('No such video');
      const key = `public/covers/${videoId}-${randomBytes(4).toString('hex')}.jpg`;
      await storage.putFile(key, file);
      await database.transaction(async (tx) => {
        const video = await repo.lockVideo(tx, videoId);
        if (!video) throw new NotFound('No such video');
        await repo.setCover(tx, videoId, key, false);
        if (by) await auditAdminCall(tx, by, { action: 'series.cover', target: `video:${videoId}`, before: video.coverKey ? { cover: mediaUrlOf(video.coverKey) } : null, after: { cover: mediaUrlOf(key) } });
      });
      deps.onChange();
      return admin.series(videoId);
    },

    /**
     * Stores an uploaded file as an episode's source and queues its transcode. The episode and
     * its upload.received event are written together; the queue is asked after commit, and
     * resumeTranscodes asks again at start in case the process died in between.
     */
    async addEpisode(
      context: RequestContext,
      videoId: string,
      upload: { file: string; number?: number; title?: string; uploadId?: string },
      by?: AdminCall,
    ): Promise<AdminEpisode> {
      if (!(await repo.videoById(database.db, videoId))) throw new NotFound('No such video');
      const number = upload.number ?? (await episodeRepo.nextEpisodeNumber(database.db, videoId));
      const id = await slotIdOf(videoId, number);
      // A resumable upload brings its own id: the same upload finishing twice adds the episode once.
      const uploadId = upload.uploadId ?? randomUUID();
      const addedBefore = async () => upload.uploadId !== undefined && (await episodeRepo.episodeById(database.db, id))?.uploadId === uploadId;
      if (await addedBefore()) return admin.episode(id);
      // A neutral name, without the extension the operator's file had: ffmpeg reads the format the
      // transcoder's probe accepted, never one a name suggests (".m3u8" would make it a playlist).
      const sourceKey = `uploads/${id}/${uploadId}`;
      await storage.putFile(sourceKey, upload.file);
      const added = await database.transaction(async (tx) => {
        const inserted =
          (await episodeRepo.attachUpload(tx, id, { uploadId, sourceKey, ...(upload.title ? { title: upload.title } : {}) })) ||
          (await episodeRepo.insertEpisode(tx, { id, videoId, number, title: upload.title || `Episode ${number}`, uploadId, sourceKey }));
        if (!inserted) return false;
        await appendEvent(tx, context, 'upload.received', { episodeId: id, videoId, episodeNumber: number, uploadId, sourceKey });
        if (by) await auditAdminCall(tx, by, { action: 'episode.upload', target: `episode:${id}`, before: null, after: { videoId, number, title: upload.title ?? null, uploadId } });
        return true;
      });
      if (!added) {
        // Another run of the same upload won meanwhile: its source is under this very key.
        if (await addedBefore()) return admin.episode(id);
        await storage.remove(sourceKey);
        throw new Conflict(`Episode ${number} of this series exists already`);
      }
      bus.nudge();
      deps.onChange();
      await transcoder.request({ episodeId: id, sourceKey, uploadId }, transcodePriorityOf(number));
      return admin.episode(id);
    },

    /**
     * Whether an upload for this episode would be taken: the series exists and the number is free or
     * only planned. Asked when a resumable upload starts, so the operator hears before sending bytes.
     */
    async checkEpisodeSlot(videoId: string, number: number): Promise<void> {
      if (!(await repo.videoById(database.db, videoId))) throw new NotFound(`No such series: ${videoId}`);
      const episode = await episodeRepo.episodeByNumber(database.db, videoId, number);
      if (episode && episode.status !== 'planned') throw new Conflict(`Episode ${number} of this series exists already`);
    },

    /**
     * Announces episodes 1..count of a series before their files exist, so viewers see the whole
     * series (and which episodes are locked) while the files are still being made.
     */
    async planEpisodes(videoId: string, count: number, titleOf: (number: number) => string = (n) => `Episode ${n}`): Promise<void> {
      await database.transaction(async (tx) => {
        for (let number = 1; number <= count; number++)
          await episodeRepo.insertEpisode(tx, { id: `${videoId}-ep${number}`, videoId, number, title: titleOf(number), status: 'planned' });
      });
      deps.onChange();
    },

    /**
     * Queues the stored source of an episode again: one that failed, or one still pending whose job
     * died without a word. It gets a new upload id, hence a new job: the dead one stays in the
     * queue's dead letters, and a late outcome of it no longer matches the episode.
     */
    async retranscode(id: string, by?: AdminCall): Promise<AdminEpisode> {
      const episode = await episodeRepo.episodeById(database.db, id);
      if (!episode) throw new NotFound('No such episode');
      if (episode.status === 'planned') throw new Conflict('This episode has no file yet: upload one');
      if (episode.status === 'ready') throw new Conflict('This episode is ready already');
      // Planned is the only status without an upload (a database constraint says so).
      const current = { episodeId: id, uploadId: episode.uploadId!, sourceKey: episode.sourceKey! };
      if (episode.status === 'pending') {
        const job = await transcoder.progressOf(current);
        if (job && job.state !== 'dead') throw new Conflict('This episode is being transcoded already');
      }
      const uploadId = randomUUID();
      const requeued = await database.transaction(async (tx) => {
        if (!(await episodeRepo.requeueEpisode(tx, id, current.uploadId, uploadId))) return false;
        if (by)
          await auditAdminCall(tx, by, { action: 'episode.retranscode', target: `episode:${id}`, before: { status: episode.status, error: episode.error }, after: { status: 'pending', uploadId } });
        return true;
      });
      if (!requeued) throw new Conflict('This episode changed meanwhile: look again');
      deps.onChange();
      await transcoder.request({ ...current, uploadId }, transcodePriorityOf(episode.number));
      return admin.episode(id);
    },

    async episode(id: string): Promise<AdminEpisode> {
      const episode = await episodeRepo.episodeById(database.db, id);
      if (!episode) throw new NotFound('No such episode');
      return presentEpisode(episode);
    },

    async episodesOf(videoId: string): Promise<AdminEpisode[]> {
      return Promise.all((await episodeRepo.episodesOf(database.db, videoId)).map(presentEpisode));
    },

    /** Replaces a homepage section (or the carousel) with these series, in this order. */
    async putSection(id: string, section: SectionInput, by?: AdminCall): Promise<void> {
      const known = new Map((await repo.cards(database.db, section.videoIds)).map((card) => [card.id, card]));
      const missing = section.videoIds.find((videoId) => !known.has(videoId));
      if (missing) throw new NotFound(`No such video: ${missing}`);
      await database.transaction(async (tx) => {
        const previous = await repo.sectionById(tx, id);
        const before = previous && { title: previous.title, kind: previous.kind, position: previous.position, videoIds: await repo.sectionVideoIdsAll(tx, id) };
        await repo.putSection(tx, { id, title: section.title, kind: section.kind, position: section.position }, section.videoIds);
        if (by) await auditAdminCall(tx, by, { action: 'section.put', target: `section:${id}`, before, after: section });
      });
      deps.onChange();
    },

    /** Asks the queue again for every episode still waiting; the queue ignores what it already has. */
    async resumeTranscodes(): Promise<number> {
      const pending = await episodeRepo.pendingEpisodes(database.db);
      // A pending episode always has its upload (a database constraint says so).
      for (const episode of pending)
        await transcoder.request({ episodeId: episode.id, sourceKey: episode.sourceKey!, uploadId: episode.uploadId! }, transcodePriorityOf(episode.number));
      return pending.length;
    },

    countPending: () => episodeRepo.countPending(database.db),
    /** The status of an episode, or null when there is none: what a resumable seeder checks before uploading. */
    episodeStatus: async (id: string) => (await episodeRepo.episodeById(database.db, id))?.status ?? null,
    ensureTags: (names: string[]) => database.transaction((tx) => repo.ensureTags(tx, names)),
    hasVideos: () => repo.hasVideos(database.db),
    hasReadyEpisode: () => episodeRepo.hasReadyEpisode(database.db),
    /** Whether the demo catalog was never seeded, is part-way, or finished: a seeder runs once per site. */
    demoSeedState: () => repo.demoSeedState(database.db),
    markDemoSeed: (finished: boolean) => repo.markDemoSeed(database.db, finished),
  };
  return admin;
}

export type CatalogAdmin = ReturnType<typeof createCatalogAdmin>;
