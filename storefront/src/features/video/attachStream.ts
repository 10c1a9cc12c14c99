import hlsWorker from 'hls.js/dist/hls.worker.js?url';
import { parseMasterPlaylist, playerBox, rememberBandwidth, rememberedBandwidth, startVariant, type PlayerBox } from './startRung';

export interface StreamHandle {
  destroy: () => void;
}

// The full build: the light one leaves out alternate renditions, and ladders share one audio
// rendition across their rungs (an EXT-X-MEDIA audio group) that it would not play.
const loadHls = () => import('hls.js');
const WORKER_HANDOVER_MS = 3000;
const hasMse = () => typeof window.MediaSource !== 'undefined' || 'ManagedMediaSource' in window;

/**
 * Starts downloading hls.js ahead of the stream that needs it (the page's own data loads meanwhile);
 * nothing where it would not be used: no Media Source Extensions, the browser plays HLS itself.
 */
export function preloadPlayer(): void {
  if (hasMse()) void loadHls().catch(() => undefined);
}

/**
 * Plays an HLS master playlist: hls.js (adaptive bitrate over Media Source Extensions) where MSE exists,
 * else the browser's own HLS (iPhone Safari). hls.js loads only when needed, outside the first bundle.
 * It starts on the rung `startVariant` picks from the bandwidth the last visits measured, capped to the
 * player's size, and remembers what this one measures. `onFatal` gets hls.js's error type once its one
 * recovery attempt per kind has failed.
 */
export async function attachStream(video: HTMLVideoElement, url: string, onFatal: (errorType: string) => void): Promise<StreamHandle> {
  if (!hasMse() && video.canPlayType('application/vnd.apple.mpegurl')) {
    video.src = url;
    return { destroy: () => video.removeAttribute('src') };
  }
  const { default: Hls } = await loadHls();
  if (!Hls.isSupported()) {
    video.src = url;
    return { destroy: () => video.removeAttribute('src') };
  }
  const bandwidth = rememberedBandwidth();
  const hls = new Hls({
    // hls.js's module build has no worker of its own: without its worker file, demuxing and
    // remuxing every segment runs on the main thread, long tasks that hold up taps while a video loads.
    workerPath: hlsWorker,
    capLevelToPlayerSize: true,
    maxBufferLength: 20,
    // Loading starts once the start rung is chosen (MANIFEST_PARSED), not on hls.js's own guess.
    autoStartLoad: false,
    ...(bandwidth !== null && { abrEwmaDefaultEstimate: bandwidth }),
  });
  hls.on(Hls.Events.MANIFEST_PARSED, () => {
    const variants = hls.levels.map((level, index) => ({
      index,
      url: level.uri,
      width: level.width,
      height: level.height,
      bitsPerSecond: Number(level.attrs['AVERAGE-BANDWIDTH'] ?? level.attrs.BANDWIDTH) || level.bitrate,
    }));
    const start = startVariant(variants, bandwidth, playerBox(video));
    if (start) hls.startLevel = start.index;
    hls.startLoad();
  });
  hls.on(Hls.Events.FRAG_BUFFERED, (_event, data) => {
    if (data.frag.type === 'main') rememberBandwidth(hls.bandwidthEstimate);
  });
  let recoveredMedia = false;
  let recoveredNetwork = false;
  let released = false;
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (!data.fatal || released) return;
    if (data.type === Hls.ErrorTypes.NETWORK_ERROR && !recoveredNetwork) {
      recoveredNetwork = true;
      hls.startLoad();
    } else if (data.type === Hls.ErrorTypes.MEDIA_ERROR && !recoveredMedia) {
      recoveredMedia = true;
      hls.recoverMediaError();
    } else {
      onFatal(data.type);
    }
  });
  // The media first: playlists preloaded into the cache arrive at once, and hls.js, finding no open
  // MediaSource yet, would wait for its next tick (100 ms) before asking for the first segment.
  hls.once(Hls.Events.MEDIA_ATTACHED, () => hls.loadSource(url));
  hls.attachMedia(video);
  return {
    destroy: () => {
      // The element at once, the instance a moment later: hls.js shares its transmuxing worker
      // between instances and ends it with the last one, so the next episode's, made right after,
      // finds it running instead of starting a new one (about 100 ms before its first frame).
      released = true;
      hls.stopLoad();
      hls.detachMedia();
      window.setTimeout(() => hls.destroy(), WORKER_HANDOVER_MS);
    },
  };
}

/**
 * Fetches what `attachStream(url)` asks for first, into the browser's cache: the master playlist, the
 * start rung's playlist and first segment, and the audio rendition's. Segments are immutable and
 * playlists kept a minute (services/catalog media routes), so a swipe to this stream then starts
 * from cache instead of the network.
 */
export async function preloadStream(url: string, box: PlayerBox | null, signal: AbortSignal): Promise<void> {
  const masterUrl = new URL(url, window.location.href).href;
  const { variants, audio } = parseMasterPlaylist(await textOf(masterUrl, signal), masterUrl);
  const start = startVariant(variants, rememberedBandwidth(), box);
  const playlists = [start?.url, audio[0]].filter((playlist): playlist is string => Boolean(playlist));
  await Promise.all(
    playlists.map(async (playlistUrl) => {
      const segment = firstSegmentOf(await textOf(playlistUrl, signal), playlistUrl);
      if (segment) await (await fetch(segment, { signal })).arrayBuffer();
    }),
  );
}

async function textOf(url: string, signal: AbortSignal): Promise<string> {
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`${response.status} for ${url}`);
  return response.text();
}

function firstSegmentOf(playlist: string, playlistUrl: string): string | undefined {
  const uri = playlist.split(/\r?\n/).map((line) => line.trim()).find((line) => line && !line.startsWith('#'));
  return uri ? new URL(uri, playlistUrl).href : undefined;
}
