import path from 'node:path';
import { text } from 'node:stream/consumers';
import type { Database, MediaStorage } from '@cliffhanger/platform';
import { episodeRepository as episodeRepo, type SubtitleRow } from './episode-repository.ts';
import { isSubtitleLang, SUBTITLE_LANGS, subtitleLanguageOf } from './subtitles.ts';

export const SUBTITLE_GROUP = 'subs';
const MASTER = 'master.m3u8';
const SUBTITLE_PLAYLIST = /^subtitles-([a-z]{2})\.m3u8$/;

/** Where an episode's subtitle playlist in `lang` is served: beside the master playlist of its ladder. */
export const subtitlePlaylistName = (lang: string) => `subtitles-${lang}.m3u8`;

export interface SubtitleRendition {
  /** BCP 47, as HLS's LANGUAGE wants it. */
  language: string;
  name: string;
  /** The subtitle playlist, relative to the master. */
  uri: string;
}

/**
 * The stored master playlist with the episode's subtitles as one SUBTITLES rendition group, and
 * every variant pointing at it. Whatever else the transcoder wrote (an audio group, its tags) stays
 * as it was; subtitle renditions already in it are replaced, so rendering twice changes nothing.
 */
export function withSubtitleRenditions(master: string, renditions: SubtitleRendition[]): string {
  const lines = master.split(/\r?\n/).filter((line) => !/^#EXT-X-MEDIA:.*TYPE=SUBTITLES/.test(line));
  const media = renditions.map(
    (rendition) =>
      `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="${SUBTITLE_GROUP}",LANGUAGE="${rendition.language}",NAME="${rendition.name}",` +
      `DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="${rendition.uri}"`,
  );
  const out: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('#EXT-X-STREAM-INF:')) {
      out.push(line);
      continue;
    }
    if (media.length) out.push(...media.splice(0));
    const attributes = line.replace(/,SUBTITLES="[^"]*"/, '');
    out.push(renditions.length ? `${attributes},SUBTITLES="${SUBTITLE_GROUP}"` : attributes);
  }
  return out.join('\n');
}

/**
 * A subtitle media playlist: the whole WebVTT file as its one segment, as long as the episode.
 * `uri` is relative to the playlist.
 */
export function subtitleMediaPlaylist(durationSeconds: number, uri: string): string {
  const seconds = Math.max(1, durationSeconds);
  return [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    `#EXT-X-TARGETDURATION:${Math.ceil(seconds)}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    `#EXTINF:${seconds.toFixed(3)},`,
    uri,
    '#EXT-X-ENDLIST',
    '',
  ].join('\n');
}

export interface RenderedPlaylist {
  body: string;
  modifiedAt: Date;
}

/**
 * The playlists that change with an episode's subtitles, rendered when they are asked for: the
 * master (the transcoder's file, plus the current subtitle renditions) and one playlist per
 * subtitle language. Rendering at serve time rather than rewriting the stored master means an
 * upload, a removal and a re-transcode (which writes a fresh master) can happen in any order.
 */
export function createPlaylistRenderer(deps: { database: Database; storage: MediaStorage }) {
  const { database, storage } = deps;
  const relative = (fromKey: string, toKey: string) => path.posix.relative(path.posix.dirname(fromKey), toKey);

  return {
    /**
     * `key` of episode `episodeId`, rendered; undefined when it is not one of these playlists (the
     * stored file is served as it is), null when it does not exist.
     */
    async render(episodeId: string, key: string): Promise<RenderedPlaylist | null | undefined> {
      const name = path.posix.basename(key);
      const subtitleLang = SUBTITLE_PLAYLIST.exec(name)?.[1];
      if (name !== MASTER && !subtitleLang) return undefined;
      const episode = await episodeRepo.episodeById(database.db, episodeId);
      if (!episode?.mediaPrefix || path.posix.dirname(key) !== episode.mediaPrefix) return undefined;
      const subtitles = await episodeRepo.subtitlesOf(database.db, episodeId);

      if (subtitleLang) {
        const subtitle = isSubtitleLang(subtitleLang) ? subtitles.find((row) => row.lang === subtitleLang) : undefined;
        if (!subtitle) return null;
        return { body: subtitleMediaPlaylist(episode.durationSeconds, relative(key, subtitle.storageKey)), modifiedAt: subtitle.uploadedAt };
      }
      // Without subtitles the master is served byte for byte, ranges and all.
      if (subtitles.length === 0) return undefined;
      const stored = await storage.stat(key);
      if (!stored) return null;
      const master = await text(storage.read(key));
      const renditions = inLanguageOrder(subtitles).map((row) => ({
        language: subtitleLanguageOf(row.lang).tag,
        name: subtitleLanguageOf(row.lang).label,
        uri: subtitlePlaylistName(row.lang),
      }));
      const newest = Math.max(stored.modifiedAt.getTime(), ...subtitles.map((row) => row.uploadedAt.getTime()));
      return { body: withSubtitleRenditions(master, renditions), modifiedAt: new Date(newest) };
    },
  };
}

export type PlaylistRenderer = ReturnType<typeof createPlaylistRenderer>;

/** Subtitles in the order the storefront lists its languages. */
export const inLanguageOrder = (rows: SubtitleRow[]) => [...rows].sort((a, b) => SUBTITLE_LANGS.indexOf(a.lang) - SUBTITLE_LANGS.indexOf(b.lang));
