import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { auditAdminCall, Invalid, NotFound, type AdminCall, type Database, type MediaStorage } from '@cliffhanger/platform';
import { episodeRepository as episodeRepo, type SubtitleRow } from './episode-repository.ts';
import { inLanguageOrder } from './subtitle-playlists.ts';
import { checkWebVtt, MAX_SUBTITLE_BYTES, subtitleLanguageOf, type SubtitleLang } from './subtitles.ts';

export interface AdminSubtitle {
  episodeId: string;
  lang: SubtitleLang;
  /** The language's own name, as viewers see it. */
  label: string;
  cues: number;
  bytes: number;
  uploadedAt: string;
}

const present = (row: SubtitleRow): AdminSubtitle => ({
  episodeId: row.episodeId,
  lang: row.lang,
  label: subtitleLanguageOf(row.lang).label,
  cues: row.cues,
  bytes: row.bytes,
  uploadedAt: row.uploadedAt.toISOString(),
});

/** The storage key of a new subtitle file: beside the episode's ladder (which a re-transcode replaces), fresh per upload. */
const subtitleKeyOf = (episodeId: string, lang: SubtitleLang) => `episodes/${episodeId}/subtitles-${lang}-${randomBytes(4).toString('hex')}.vtt`;

/** What the audit log keeps of one language's subtitles. */
const auditedSubtitle = (row: Pick<SubtitleRow, 'lang' | 'cues' | 'bytes'> | undefined) => (row ? { lang: row.lang, cues: row.cues, bytes: row.bytes } : null);

/** An operator's subtitle calls: add or replace one language's WebVTT file, remove it, list them; audited when `by` is given. */
export function createSubtitleAdmin(deps: { database: Database; storage: MediaStorage }) {
  const { database, storage } = deps;

  return {
    /**
     * Checks a local WebVTT file and makes it the episode's subtitles in `lang`. The file is stored
     * first and the row written after, so a refusal or a failure leaves the previous subtitles as
     * they were; the replaced file goes once the new row is committed.
     */
    async putSubtitles(episodeId: string, lang: SubtitleLang, file: string, by?: AdminCall): Promise<AdminSubtitle> {
      if (!(await episodeRepo.episodeById(database.db, episodeId))) throw new NotFound('No such episode');
      if ((await fs.promises.stat(file)).size > MAX_SUBTITLE_BYTES) throw new Invalid({ file: `The subtitle file is over ${MAX_SUBTITLE_BYTES / 1024 ** 2} MB` });
      const bytes = await fs.promises.readFile(file);
      const { cues } = checkWebVtt(bytes);
      const storageKey = subtitleKeyOf(episodeId, lang);
      await storage.put(storageKey, bytes);
      let replaced: string | null;
      try {
        replaced = await database.transaction(async (tx) => {
          if (!(await episodeRepo.lockEpisode(tx, episodeId))) throw new NotFound('No such episode');
          const before = (await episodeRepo.subtitlesOf(tx, episodeId)).find((subtitle) => subtitle.lang === lang);
          const previousKey = await episodeRepo.putSubtitle(tx, { episodeId, lang, storageKey, bytes: bytes.length, cues });
          if (by)
            await auditAdminCall(tx, by, { action: 'subtitles.put', target: `episode:${episodeId}`, before: auditedSubtitle(before), after: auditedSubtitle({ lang, cues, bytes: bytes.length }) });
          return previousKey;
        });
      } catch (error) {
        await storage.remove(storageKey).catch(() => undefined);
        throw error;
      }
      // A leftover file is harmless (nothing points at it); a failed removal must not fail the upload.
      if (replaced) await storage.remove(replaced).catch(() => undefined);
      const row = (await episodeRepo.subtitlesOf(database.db, episodeId)).find((subtitle) => subtitle.lang === lang);
      if (!row) throw new NotFound('These subtitles were removed meanwhile');
      return present(row);
    },

    async removeSubtitles(episodeId: string, lang: SubtitleLang, by?: AdminCall): Promise<void> {
      const removed = await database.transaction(async (tx) => {
        if (!(await episodeRepo.lockEpisode(tx, episodeId))) throw new NotFound('No such episode');
        const before = (await episodeRepo.subtitlesOf(tx, episodeId)).find((subtitle) => subtitle.lang === lang);
        const storageKey = await episodeRepo.deleteSubtitle(tx, episodeId, lang);
        if (storageKey && by) await auditAdminCall(tx, by, { action: 'subtitles.remove', target: `episode:${episodeId}`, before: auditedSubtitle(before), after: null });
        return storageKey;
      });
      if (!removed) throw new NotFound(`This episode has no ${subtitleLanguageOf(lang).label} subtitles`);
      await storage.remove(removed).catch(() => undefined);
    },

    async subtitlesOf(episodeId: string): Promise<AdminSubtitle[]> {
      if (!(await episodeRepo.episodeById(database.db, episodeId))) throw new NotFound('No such episode');
      return inLanguageOrder(await episodeRepo.subtitlesOf(database.db, episodeId)).map(present);
    },
  };
}
