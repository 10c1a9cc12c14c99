import { randomBytes, randomUUID } from 'node:crypto';
import {
  appendEvent,
  Conflict,
  NotFound,
  type Database,
  type EventBus,
  type MediaStorage,
  type RequestContext,
} from '@cliffhanger/platform';
import type { TranscodeProgress, Transcoder } from './ports.ts';
import { catalogRepository as repo, slugOf, type EpisodeRow, type VideoRow } from './repository.ts';
import { mediaUrlOf } from './service.ts';
import { createSubtitleAdmin } from './subtitle-admin.ts';

export interface SeriesInput {
  title: string;
  description?: string;
  tags?: string[];
  freeEpisodes?: number;
  priceCoins?: number;
  /** A chosen id (the demo catalog's are readable and stable); otherwise one is made from the title. */
  id?: string;
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

/** Early episodes first: they are what viewers open, and a new series needs its first one most. */
export const transcodePriorityOf = (episodeNumber: number) => Math.min(episodeNumber, 1000);

/** What an operator does: add series and episodes, arrange the homepage, follow transcodes. */
export function createCatalogAdmin(deps: CatalogAdminDeps) {
  const { database, bus, storage, transcoder } = deps;

  async function present(video: VideoRow): Promise<AdminVideo> {
    const [card] = await repo.cards(database.db, [video.id]);
    return {
      id: video.id,
      title: video.title,
      description: video.description,
      tags: card?.tags ?? [],
      cover: video.coverKey ? mediaUrlOf(video.coverKey) : '',
      freeEpisodes: video.freeEpisodes,
      priceCoins: video.priceCoins,
      episodeCount: video.episodeCount,
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

  const admin = {
    /** putSubtitles, removeSubtitles, subtitlesOf: an episode's WebVTT files. */
    ...createSubtitleAdmin({ database, storage }),

    /** Creates a series, or answers the one that already has this title (titles are unique). */
    async createSeries(input: SeriesInput): Promise<{ video: AdminVideo; created: boolean }> {
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
        });
        await repo.setVideoTags(tx, id, await repo.ensureTags(tx, input.tags ?? []));
        await repo.refreshSearch(tx, id);
        return { video, created: true };
      });
      deps.onChange();
      return { video: await present(result.video), created: result.created };
    },

    async series(id: string): Promise<AdminVideo> {
      const video = await repo.videoById(database.db, id);
      if (!video) throw new NotFound('No such video');
      return present(video);
    },

    /** Sets a series' cover from a local image file; covers are public, under a fresh key each time. */
    async setCover(videoId: string, file: string): Promise<AdminVideo> {
      if (!(await repo.videoById(database.db, videoId))) throw new NotFound('No such video');
      const key = `public/covers/${videoId}-${randomBytes(4).toString('hex')}.jpg`;
      await storage.putFile(key, file);
      await repo.setCover(database.db, videoId, key, false);
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
      upload: { file: string; number?: number; title?: string },
    ): Promise<AdminEpisode> {
      if (!(await repo.videoById(database.db, videoId))) throw new NotFound('No such video');
      const number = upload.number ?? (await repo.nextEpisodeNumber(database.db, videoId));
      const id = `${videoId}-ep${number}`;
      const uploadId = randomUUID();
      // A neutral name, without the extension the operator's file had: ffmpeg reads the format the
      // transcoder's probe accepted, never one a name suggests (".m3u8" would make it a playlist).
      const sourceKey = `uploads/${id}/${uploadId}`;
      await storage.putFile(sourceKey, upload.file);
      const added = await database.transaction(async (tx) => {
        const inserted =
          (await repo.attachUpload(tx, id, { uploadId, sourceKey, ...(upload.title ? { title: upload.title } : {}) })) ||
          (await repo.insertEpisode(tx, { id, videoId, number, title: upload.title || `Episode ${number}`, uploadId, sourceKey }));
        if (!inserted) return false;
        await appendEvent(tx, context, 'upload.received', { episodeId: id, videoId, episodeNumber: number, uploadId, sourceKey });
        return true;
      });
      if (!added) {
        await storage.remove(sourceKey);
        throw new Conflict(`Episode ${number} of this series exists already`);
      }
      bus.nudge();
      deps.onChange();
      await transcoder.request({ episodeId: id, sourceKey, uploadId }, transcodePriorityOf(number));
      return admin.episode(id);
    },

    /**
     * Announces episodes 1..count of a series before their files exist, so viewers see the whole
     * series (and which episodes are locked) while the files are still being made.
     */
    async planEpisodes(videoId: string, count: number, titleOf: (number: number) => string = (n) => `Episode ${n}`): Promise<void> {
      await database.transaction(async (tx) => {
        for (let number = 1; number <= count; number++)
          await repo.insertEpisode(tx, { id: `${videoId}-ep${number}`, videoId, number, title: titleOf(number), status: 'planned' });
      });
      deps.onChange();
    },

    /**
     * Queues the stored source of an episode again: one that failed, or one still pending whose job
     * died without a word. It gets a new upload id, hence a new job: the dead one stays in the
     * queue's dead letters, and a late outcome of it no longer matches the episode.
     */
    async retranscode(id: string): Promise<AdminEpisode> {
      const episode = await repo.episodeById(database.db, id);
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
      if (!(await repo.requeueEpisode(database.db, id, current.uploadId, uploadId))) throw new Conflict('This episode changed meanwhile: look again');
      deps.onChange();
      await transcoder.request({ ...current, uploadId }, transcodePriorityOf(episode.number));
      return admin.episode(id);
    },

    async episode(id: string): Promise<AdminEpisode> {
      const episode = await repo.episodeById(database.db, id);
      if (!episode) throw new NotFound('No such episode');
      return presentEpisode(episode);
    },

    async episodesOf(videoId: string): Promise<AdminEpisode[]> {
      return Promise.all((await repo.episodesOf(database.db, videoId)).map(presentEpisode));
    },

    /** Replaces a homepage section (or the carousel) with these series, in this order. */
    async putSection(id: string, section: SectionInput): Promise<void> {
      const known = new Map((await repo.cards(database.db, section.videoIds)).map((card) => [card.id, card]));
      const missing = section.videoIds.find((videoId) => !known.has(videoId));
      if (missing) throw new NotFound(`No such video: ${missing}`);
      await database.transaction((tx) => repo.putSection(tx, { id, title: section.title, kind: section.kind, position: section.position }, section.videoIds));
      deps.onChange();
    },

    /** Asks the queue again for every episode still waiting; the queue ignores what it already has. */
    async resumeTranscodes(): Promise<number> {
      const pending = await repo.pendingEpisodes(database.db);
      // A pending episode always has its upload (a database constraint says so).
      for (const episode of pending)
        await transcoder.request({ episodeId: episode.id, sourceKey: episode.sourceKey!, uploadId: episode.uploadId! }, transcodePriorityOf(episode.number));
      return pending.length;
    },

    countPending: () => repo.countPending(database.db),
    /** The status of an episode, or null when there is none: what a resumable seeder checks before uploading. */
    episodeStatus: async (id: string) => (await repo.episodeById(database.db, id))?.status ?? null,
    ensureTags: (names: string[]) => database.transaction((tx) => repo.ensureTags(tx, names)),
    hasVideos: () => repo.hasVideos(database.db),
    hasReadyEpisode: () => repo.hasReadyEpisode(database.db),
    /** Whether the demo catalog was never seeded, is part-way, or finished: a seeder runs once per site. */
    demoSeedState: () => repo.demoSeedState(database.db),
    markDemoSeed: (finished: boolean) => repo.markDemoSeed(database.db, finished),
  };
  return admin;
}

export type CatalogAdmin = ReturnType<typeof createCatalogAdmin>;
