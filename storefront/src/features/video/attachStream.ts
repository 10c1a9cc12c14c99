import hlsWorker from 'hls.js/dist/hls.worker.js?url';
import { playerBox, rememberBandwidth, rememberedBandwidth, startVariant } from './startRung';

export interface StreamHandle {
  /** How far ahead of the playhead to buffer, in seconds: a standby stream asks for its start only. */
  bufferAhead: (seconds: number) => void;
  destroy: () => void;
}

/** Seconds buffered ahead while playing, once the viewer has stayed with the episode (`WATCHED_SECONDS`). */
export const PLAYING_BUFFER_SECONDS = 20;
/**
 * Seconds buffered ahead in an episode's first seconds, and by a standby stream (the next episode, a
 * swipe away): its first segments. A viewer who leaves at once has not paid for 20 s of it.
 */
export const STANDBY_BUFFER_SECONDS = 4;
/** Seconds of an episode played before it buffers fully and the next one is made to stand by. */
export const WATCHED_SECONDS = 3;

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
 * recovery attempt per kind has failed. Once `signal` is aborted (the player moved on while hls.js was
 * loading) nothing is attached and it rejects with the signal's reason: a stream attached late would
 * take the element from the one attached after it.
 */
export async function attachStream(
  video: HTMLVideoElement,
  url: string,
  onFatal: (errorType: string) => void,
  bufferSeconds = PLAYING_BUFFER_SECONDS,
  signal?: AbortSignal,
): Promise<StreamHandle> {
  // The browser's own HLS buffers as it sees fit.
  const native = (): StreamHandle => {
    video.src = url;
    return { bufferAhead: () => undefined, destroy: () => video.removeAttribute('src') };
  };
  signal?.throwIfAborted();
  if (!hasMse() && video.canPlayType('application/vnd.apple.mpegurl')) return native();
  const { default: Hls } = await loadHls();
  // hls.js was loaded ahead (preloadPlayer): without this, the player would be made in the task that
  // rendered the page, one long task of both that holds up a tap.
  await new Promise((resolve) => setTimeout(resolve, 0));
  signal?.throwIfAborted();
  if (!Hls.isSupported()) return native();
  const bandwidth = rememberedBandwidth();
  const hls = new Hls({
    // hls.js's module build has no worker of its own: without its worker file, demuxing and
    // remuxing every segment runs on the main thread, long tasks that hold up taps while a video loads.
    workerPath: hlsWorker,
    capLevelToPlayerSize: true,
    // hls.js reads maxBufferLength as a floor (it buffers up to maxBufferSize, 60 MB, minutes of a
    // phone's rung) and maxMaxBufferLength as the ceiling: both bound how far ahead it loads.
    maxBufferLength: bufferSeconds,
    maxMaxBufferLength: bufferSeconds,
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
    // A stream's first picture may come a few hundredths of a second after 0 (where its sound starts):
    // one waiting paused (a standby) moves there now, so that its first frame is decoded before it
    // plays, instead of hls.js skipping the gap a tick (100 ms) after play.
    const { buffered } = video;
    if (video.paused && buffered.length > 0 && video.currentTime < buffered.start(0) && buffered.start(0) - video.currentTime < 1) {
      video.currentTime = buffered.start(0);
    }
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
    // hls.js reads its buffer lengths at every buffer check: a standby stream that becomes the playing
    // one buffers further ahead from its next check on.
    bufferAhead: (seconds) => {
      hls.config.maxBufferLength = seconds;
      hls.config.maxMaxBufferLength = seconds;
    },
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
