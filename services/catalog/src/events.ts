import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import type { BusEvent, Database, EventBus, MediaStorage } from '@cliffhanger/platform';
import { episodeRepository as episodeRepo } from './episode-repository.ts';
import { rankingsRepository as rankings } from './rankings-repository.ts';
import { catalogRepository as repo } from './repository.ts';

/** history.recorded, as the user service emits it (userId rides on the event). */
export interface HistoryRecorded {
  videoId: string;
  episodeId: string;
  episodeNumber: number;
  positionSeconds: number;
}

/** upload.received, emitted by the catalog when an episode's source is stored. */
export interface UploadReceived {
  episodeId: string;
  videoId: string;
  episodeNumber: number;
  uploadId: string;
  sourceKey: string;
}

/** transcode.completed and transcode.failed, emitted by the transcoder. */
export interface TranscodeCompleted {
  episodeId: string;
  uploadId: string;
  durationSeconds: number;
  width: number;
  height: number;
  /** Storage prefix of the ladder: master playlist, rung folders, poster. */
  mediaPrefix: string;
  master: string;
  poster: string;
}

export interface TranscodeFailed {
  episodeId: string;
  uploadId: string;
  reason: string;
}

/** The catalog's consumers: play counts and rankings from history, episode readiness from the transcoder. */
export function subscribeCatalogConsumers(bus: EventBus, deps: { database: Database; storage: MediaStorage; onChange: () => void }): void {
  const { database } = deps;
  bus.subscribeBatch('catalog.play-counts', ['history.recorded'], async (events, tx) => {
    // The viewer's day is unknown here; a UTC day is one rule for everyone and close enough.
    // A play counted here is counted in its hour too, for the "top" and "trending" rankings.
    const plays = events.flatMap((event) => {
      const data = event.data as unknown as HistoryRecorded;
      return event.userId && data.episodeId && data.videoId ? [{ userId: event.userId, episodeId: data.episodeId, videoId: data.videoId, time: event.time }] : [];
    });
    await rankings.countPlays(tx, plays);
  });
  bus.subscribe('catalog.transcodes', ['transcode.completed', 'transcode.failed'], async (event: BusEvent, tx, effects) => {
    if (event.type === 'transcode.failed') {
      const data = event.data as unknown as TranscodeFailed;
      await episodeRepo.finishEpisode(tx, data.episodeId, data.uploadId, { status: 'failed', error: data.reason });
      effects.afterCommit(deps.onChange);
      return;
    }
    const data = event.data as unknown as TranscodeCompleted;
    const episode = await episodeRepo.finishEpisode(tx, data.episodeId, data.uploadId, {
      status: 'ready',
      durationSeconds: Math.round(data.durationSeconds),
      mediaPrefix: data.mediaPrefix,
    });
    if (!episode) return;
    const video = await repo.videoById(tx, episode.videoId);
    if (video && !video.coverKey) {
      // A series uploaded without a cover shows its first finished episode's poster instead. The
      // file is copied once the episode is committed ready: a rollback leaves no file behind, and a
      // copy that fails takes the cover back rather than point at nothing.
      const coverKey = `public/covers/${video.id}-${randomBytes(4).toString('hex')}.jpg`;
      await repo.setCover(tx, video.id, coverKey, true);
      effects.afterCommit(async () => {
        try {
          await deps.storage.put(coverKey, await buffer(deps.storage.read(`${data.mediaPrefix}/${data.poster}`)));
        } catch (error) {
          await database.transaction((again) => repo.clearCover(again, video.id, coverKey));
          throw error;
        }
      });
    }
    effects.afterCommit(deps.onChange);
  });
}
