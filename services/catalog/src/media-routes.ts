import { pipeline } from 'node:stream/promises';
import { Router, type Request, type Response } from 'express';
import { failure, type MediaStorage } from '@cliffhanger/platform';
import { grantAllows } from './grants.ts';
import type { PlaylistRenderer, RenderedPlaylist } from './subtitle-playlists.ts';

const CONTENT_TYPES: Record<string, string> = {
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  m4s: 'video/iso.segment',
  mp4: 'video/mp4',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  vtt: 'text/vtt; charset=utf-8',
};

// Segments never change under one URL, so the browser may keep them; grants are per viewer, so
// no shared cache may. Playlists are re-read soon in case a ladder was replaced.
const PRIVATE_FOREVER = 'private, max-age=31536000, immutable';
const cacheControlOf = (extension: string, isPublic: boolean) =>
  isPublic ? 'public, max-age=86400' : extension === 'm3u8' ? 'private, max-age=60' : PRIVATE_FOREVER;

/**
 * /media: covers under /media/public/..., and an episode's ladder under
 * /media/g/<grant>/episodes/<episodeId>/..., only with a valid grant for that very episode. The
 * playlists that carry an episode's subtitles are rendered by `playlists`; everything else is the
 * stored file.
 */
export function mediaRoutes(storage: MediaStorage, mediaSecret: string, playlists?: PlaylistRenderer): Router {
  const router = Router();
  router.use('/media', async (req: Request, res: Response) => {
    // Mounted ahead of helmet, so what it would add goes here: every answer is exactly the type it
    // says (an upload cannot be sniffed into HTML), and no other site may embed our media.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return void res.status(405).json(failure(405, 'Media is read-only'));
    }
    let parts: string[];
    try {
      parts = req.path.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      return void res.status(404).json(failure(404, 'No such media'));
    }
    if (parts[0] === 'public') return serve(storage, parts.join('/'), true, req, res);
    const [scope, grant, area, episodeId] = parts;
    if (scope !== 'g' || area !== 'episodes' || !grant || !episodeId || parts.length < 5) {
      return void res.status(404).json(failure(404, 'No such media'));
    }
    if (!grantAllows(mediaSecret, grant, episodeId)) {
      return void res.status(403).json(failure(403, 'This playback link is not valid for this episode, or it has expired'));
    }
    const key = parts.slice(2).join('/');
    const rendered = key.endsWith('.m3u8') ? await playlists?.render(episodeId, key) : undefined;
    if (rendered === null) return void res.status(404).json(failure(404, 'No such media'));
    if (rendered) return serveRendered(rendered, req, res);
    return serve(storage, key, false, req, res);
  });
  return router;
}

async function serve(storage: MediaStorage, key: string, isPublic: boolean, req: Request, res: Response): Promise<void> {
  let stored;
  try {
    stored = await storage.stat(key);
  } catch {
    stored = null; // a key that could escape the storage root is simply not there
  }
  if (!stored) return void res.status(404).json(failure(404, 'No such media'));
  const extension = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  res.setHeader('Content-Type', CONTENT_TYPES[extension] ?? 'application/octet-stream');
  res.setHeader('Cache-Control', cacheControlOf(extension, isPublic));
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Last-Modified', stored.modifiedAt.toUTCString());

  const range = parseRange(req.get('range'), stored.size);
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${stored.size}`);
    return void res.status(416).end();
  }
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${stored.size}`);
  }
  res.setHeader('Content-Length', range ? range.end - range.start + 1 : stored.size);
  if (req.method === 'HEAD' || stored.size === 0) return void res.end();
  try {
    await pipeline(storage.read(key, range ?? undefined), res);
  } catch {
    res.destroy(); // the viewer went away mid-segment, or the file vanished under a replaced ladder
  }
}

/** A playlist made for this answer: small, so always whole (a Range header is ignored, as RFC 9110 allows). */
function serveRendered(playlist: RenderedPlaylist, req: Request, res: Response): void {
  const body = Buffer.from(playlist.body);
  res.setHeader('Content-Type', CONTENT_TYPES.m3u8!);
  res.setHeader('Cache-Control', cacheControlOf('m3u8', false));
  res.setHeader('Last-Modified', playlist.modifiedAt.toUTCString());
  res.setHeader('Content-Length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * One byte range (`bytes=a-b`, `bytes=a-`, `bytes=-n`), as players ask; a list of ranges or a
 * malformed header is answered with the whole file, which RFC 9110 allows.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const match = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (end < start && match[2] !== '') return null;
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
