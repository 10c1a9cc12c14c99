import { trackEvent } from '../../api/analytics';

/**
 * One playback session's quality (QoE), as the analytics service aggregates it from `playback` hits
 * (services/analytics, docs/api.md "Admin"), measured the way Mux Data measures video startup and
 * rebuffering. Durations are whole milliseconds.
 */
export interface PlaybackQuality {
  /** Play request (autoplay, or the viewer's press when autoplay was refused) to the first frame. */
  startupMs?: number;
  /** Stalls after the first frame, not counting waits for a seek. */
  rebufferCount: number;
  rebufferMs: number;
  /** Time spent playing, stalls not included. */
  watchMs: number;
  /** The rendition watched longest, named like the transcoder's ladder by its short side: "720p". */
  rung?: string;
  /** The fatal error: hls.js's error type, or the media element's error name. */
  error?: string;
}

export interface PlaybackMeter {
  /** Autoplay was refused: startup counts from the viewer's own press of play. */
  waitForViewer: () => void;
  /** A fatal error; the first one is kept. */
  fail: (error: string) => void;
  /** Stops measuring: the session's quality, or null when it never was a play (no request, no error). */
  finish: () => PlaybackQuality | null;
}

const MEDIA_ERRORS: Record<number, string> = {
  1: 'MEDIA_ERR_ABORTED',
  2: 'MEDIA_ERR_NETWORK',
  3: 'MEDIA_ERR_DECODE',
  4: 'MEDIA_ERR_SRC_NOT_SUPPORTED',
};

/** The ladder names a rung by the short side of its picture, so a 9:16 clip's 720p is 720x1280. */
function rungOf(video: HTMLVideoElement): string | undefined {
  const shortSide = Math.min(video.videoWidth, video.videoHeight);
  return shortSide > 0 ? `${shortSide}p` : undefined;
}

/** Measures one session of `video` from now (the page asks it to play) until `finish`. */
export function measurePlayback(video: HTMLVideoElement, now: () => number = () => performance.now()): PlaybackMeter {
  let requestedAt: number | null = now();
  let started = false;
  let startupMs: number | undefined;
  let playingSince: number | null = null;
  let stalledSince: number | null = null;
  let seeking = false;
  let rebufferCount = 0;
  let rebufferMs = 0;
  let rung = rungOf(video);
  const watchedByRung = new Map<string | undefined, number>();
  let error: string | undefined;

  const stopWatching = (at: number) => {
    if (playingSince === null) return;
    watchedByRung.set(rung, (watchedByRung.get(rung) ?? 0) + (at - playingSince));
    playingSince = null;
  };
  const stopStall = (at: number) => {
    if (stalledSince === null) return;
    rebufferMs += at - stalledSince;
    stalledSince = null;
  };

  const listeners: Record<string, () => void> = {
    play: () => {
      if (!started && requestedAt === null) requestedAt = now();
    },
    playing: () => {
      const at = now();
      if (!started) {
        started = true;
        if (requestedAt !== null) startupMs = at - requestedAt;
      }
      stopStall(at);
      rung = rungOf(video) ?? rung;
      playingSince ??= at;
    },
    waiting: () => {
      const at = now();
      stopWatching(at);
      if (started && !seeking && stalledSince === null) {
        rebufferCount++;
        stalledSince = at;
      }
    },
    pause: () => {
      const at = now();
      stopWatching(at);
      stopStall(at);
    },
    ended: () => {
      const at = now();
      stopWatching(at);
      stopStall(at);
    },
    seeking: () => {
      seeking = true;
    },
    seeked: () => {
      seeking = false;
    },
    // A rendition switch: what played so far counts for the rung before it.
    resize: () => {
      const at = now();
      const wasPlaying = playingSince !== null;
      stopWatching(at);
      rung = rungOf(video) ?? rung;
      if (wasPlaying) playingSince = at;
    },
    error: () => {
      error ??= MEDIA_ERRORS[video.error?.code ?? 0] ?? 'MEDIA_ERR';
    },
  };
  for (const [type, listener] of Object.entries(listeners)) video.addEventListener(type, listener);

  return {
    waitForViewer: () => {
      if (!started) requestedAt = null;
    },
    fail: (reason) => {
      error ??= reason;
    },
    finish: () => {
      for (const [type, listener] of Object.entries(listeners)) video.removeEventListener(type, listener);
      const at = now();
      stopWatching(at);
      stopStall(at);
      if (requestedAt === null && !started && error === undefined) return null;
      const watched = [...watchedByRung.entries()].sort((a, b) => b[1] - a[1]);
      const rungWatched = watched.find(([name]) => name !== undefined)?.[0] ?? rung;
      return {
        ...(startupMs !== undefined ? { startupMs: Math.round(startupMs) } : {}),
        rebufferCount,
        rebufferMs: Math.round(rebufferMs),
        watchMs: Math.round(watched.reduce((sum, [, ms]) => sum + ms, 0)),
        ...(rungWatched !== undefined ? { rung: rungWatched } : {}),
        ...(error !== undefined ? { error } : {}),
      };
    },
  };
}

export interface PlaybackSession extends Omit<PlaybackMeter, 'finish'> {
  /** Ends the session and sends its one `playback` hit; later calls do nothing. */
  end: () => void;
}

/**
 * A playback session of one episode: measured from now, reported once when it ends (a new episode
 * or source, the player going away, or the page being left: pagehide).
 */
export function startPlaybackSession(video: HTMLVideoElement, ids: { videoId: string; episodeId?: string }): PlaybackSession {
  const meter = measurePlayback(video);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    window.removeEventListener('pagehide', end);
    const quality = meter.finish();
    if (quality) trackEvent('playback', { ...ids, ...quality });
  };
  window.addEventListener('pagehide', end);
  return { waitForViewer: meter.waitForViewer, fail: meter.fail, end };
}
