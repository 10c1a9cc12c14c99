import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Subtitle } from '../../api/types';
import { useT } from '../../i18n/I18nProvider';
import { attachStream, PLAYING_BUFFER_SECONDS, STANDBY_BUFFER_SECONDS, WATCHED_SECONDS, type StreamHandle } from './attachStream';
import { startPlaybackSession } from './playbackQuality';
import { PlayerControls } from './PlayerControls';
import { SubtitleMenu } from './SubtitleMenu';
import { htmlLangOf, useSubtitles } from './useSubtitles';
import { useSwipe } from './useSwipe';

interface PlayerProps {
  /** The HLS master playlist; absent while the episode loads, is locked or is being prepared. */
  url?: string;
  /** The master playlist played next (a swipe away): it stands by, its start buffered, once this one plays. */
  preloadUrl?: string;
  /** What the playback quality report of the source is about. */
  videoId: string;
  episodeId?: string;
  poster: string;
  startAt?: number;
  /** The episode's WebVTT tracks; the interface language's shows by default, the controls offer the others. */
  subtitles?: Subtitle[];
  /** Shown over the poster instead of the video, e.g. the locked or preparing state. */
  overlay?: ReactNode;
  hasNext: boolean;
  hasPrevious: boolean;
  onNext: () => void;
  onPrevious: () => void;
  onEnded: () => void;
  onPosition: (seconds: number) => void;
  /** The episode playing paused, by the viewer or at its end (an ended element pauses first). */
  onPause?: () => void;
}

const HIDE_CONTROLS_MS = 2800;
const SEEK_STEP = 5;
const NO_SUBTITLES: Subtitle[] = [];

/** The next episode, attached to the standby element. */
interface Standby {
  url: string;
  handle: StreamHandle;
  /** Where its stream's fatal error goes: letting it go while it stands by, the player's once it plays. */
  onFatal: (errorType: string) => void;
}

export function Player({ url, preloadUrl, videoId, episodeId, poster, startAt = 0, subtitles = NO_SUBTITLES, overlay, hasNext, hasPrevious, onNext, onPrevious, onEnded, onPosition, onPause }: PlayerProps) {
  const t = useT();
  const stage = useRef<HTMLDivElement>(null);
  // Two elements take turns: the one playing (`video`, first in the page), and the standby, hidden,
  // holding the next episode attached and its start buffered, so that a swipe only shows and plays it.
  const video = useRef<HTMLVideoElement>(null);
  const standbyVideo = useRef<HTMLVideoElement>(null);
  const [activeSlot, setActiveSlot] = useState<0 | 1>(0);
  const standby = useRef<Standby | null>(null);
  // Whether the viewer has stayed with the source shown for WATCHED_SECONDS: it then buffers fully,
  // and the next stands by. Each source starts unwatched, one come back to included.
  const [watched, setWatched] = useState(false);
  const [shownUrl, setShownUrl] = useState(url);
  if (url !== shownUrl) {
    // The standby holds this source: it becomes the player in this very render (no frame of the
    // element it replaces is shown twice), and the one playing becomes the standby.
    setShownUrl(url);
    setWatched(false);
    if (url && standby.current?.url === url) setActiveSlot((slot) => (slot === 0 ? 1 : 0));
  }
  const [playing, setPlaying] = useState(false);
  const [buffering, setBuffering] = useState(true);
  const [failed, setFailed] = useState(false);
  const [muted, setMuted] = useState(false);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  const [controlsShown, setControlsShown] = useState(true);
  const [attempt, setAttempt] = useState(0);
  const [fullscreen, setFullscreen] = useState(false);
  const hideTimer = useRef<number>(0);
  const captions = useSubtitles(video, subtitles);

  useEffect(() => {
    const element = video.current;
    if (!element || !url) return;
    setFailed(false);
    setBuffering(true);
    setTime(0);
    let handle: StreamHandle | null = null;
    let cancelled = false;
    const attaching = new AbortController();
    // One quality report per source: it ends with this effect (next episode, retry, leaving the page).
    const session = startPlaybackSession(element, { videoId, episodeId });
    const fail = (error: string) => {
      session.fail(error);
      setFailed(true);
    };
    const start = () => {
      element.play().catch(() => {
        // Autoplay with sound needs a gesture in most browsers; start muted instead of not at all.
        element.muted = true;
        setMuted(true);
        element.play().catch(() => {
          session.waitForViewer();
          setBuffering(false);
        });
      });
    };
    // From the start, play is asked for at once: the first frame then shows as soon as it is
    // decoded, not after a round of metadata events (and hls.js's skip over the few hundredths of
    // a second before it). A resume waits for the metadata to seek first.
    const resumes = startAt > 0;
    const onMetadata = () => {
      if (startAt < element.duration - 3) element.currentTime = startAt;
      start();
    };
    // The first seconds buffer only a little ahead; once the viewer has stayed, the rest follows.
    let from: number | null = null;
    const onTime = () => {
      if (element.paused) return;
      from ??= element.currentTime;
      if (element.currentTime - from < WATCHED_SECONDS) return;
      element.removeEventListener('timeupdate', onTime);
      handle?.bufferAhead(PLAYING_BUFFER_SECONDS);
      setWatched(true);
    };
    element.addEventListener('timeupdate', onTime);
    const waiting = standby.current;
    if (waiting?.url === url && attempt === 0) {
      // Swiped to the episode standing by: attached, its start buffered; it plays at once.
      standby.current = null;
      waiting.onFatal = fail;
      handle = waiting.handle;
      // Sound as the viewer had it on the element it replaces.
      element.muted = muted;
      if (resumes && element.readyState >= HTMLMediaElement.HAVE_METADATA) onMetadata();
      else if (resumes) element.addEventListener('loadedmetadata', onMetadata, { once: true });
      else start();
    } else {
      if (resumes) element.addEventListener('loadedmetadata', onMetadata, { once: true });
      attachStream(element, url, fail, STANDBY_BUFFER_SECONDS, attaching.signal)
        .then((attached) => {
          if (cancelled) return attached.destroy();
          handle = attached;
          if (!resumes) start();
        })
        .catch(() => {
          if (!cancelled) fail('playerLoadError');
        });
    }
    return () => {
      cancelled = true;
      attaching.abort();
      element.removeEventListener('loadedmetadata', onMetadata);
      element.removeEventListener('timeupdate', onTime);
      session.end();
      handle?.destroy();
    };
    // startAt applies to the source it came with, not to later resume updates.
  }, [url, attempt]);

  // Once the viewer has stayed with this episode, the next one is attached to the standby element and
  // buffers its start (a few seconds), paused: a swipe then shows it and plays, with no playlist or
  // segment to wait for.
  useEffect(() => {
    const spare = standbyVideo.current;
    const current = standby.current;
    if (current && current.url !== preloadUrl) {
      current.handle.destroy();
      standby.current = null;
    }
    if (!spare || !url || !preloadUrl || preloadUrl === url || standby.current || !watched) return;
    let cancelled = false;
    const attaching = new AbortController();
    let waiting: Standby | null = null;
    attachStream(spare, preloadUrl, (errorType) => waiting?.onFatal(errorType), STANDBY_BUFFER_SECONDS, attaching.signal)
      .then((handle) => {
        if (cancelled) return handle.destroy();
        const standing: Standby = {
          url: preloadUrl,
          handle,
          // A stream that fails while it stands by is let go: a swipe then starts that episode afresh.
          onFatal: () => {
            if (standby.current === standing) standby.current = null;
            handle.destroy();
          },
        };
        waiting = standing;
        standby.current = standing;
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
      attaching.abort();
    };
  }, [url, preloadUrl, activeSlot, watched]);

  useEffect(
    () => () => {
      standby.current?.handle.destroy();
      standby.current = null;
    },
    [],
  );

  const revealControls = () => {
    setControlsShown(true);
    window.clearTimeout(hideTimer.current);
    hideTimer.current = window.setTimeout(() => setControlsShown(false), HIDE_CONTROLS_MS);
  };
  useEffect(() => () => window.clearTimeout(hideTimer.current), []);

  useEffect(() => {
    const onChange = () => setFullscreen(document.fullscreenElement === stage.current);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  const togglePlay = () => {
    const element = video.current;
    if (!element || !url) return;
    if (element.paused) void element.play().catch(() => setPlaying(false));
    else element.pause();
    revealControls();
  };
  const seekBy = (seconds: number) => {
    const element = video.current;
    if (!element) return;
    element.currentTime = Math.min(Math.max(0, element.currentTime + seconds), element.duration || 0);
    revealControls();
  };
  const toggleMute = () => {
    const element = video.current;
    if (!element) return;
    element.muted = !element.muted;
    setMuted(element.muted);
  };
  const toggleFullscreen = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void stage.current?.requestFullscreen?.().catch(() => undefined);
  };

  const swipe = useSwipe({
    onSwipeUp: () => hasNext && onNext(),
    onSwipeDown: () => hasPrevious && onPrevious(),
    onTap: () => (controlsShown ? togglePlay() : revealControls()),
  });

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.target instanceof HTMLInputElement && event.key.startsWith('Arrow')) return;
    const actions: Record<string, () => void> = {
      ' ': togglePlay,
      k: togglePlay,
      ArrowLeft: () => seekBy(-SEEK_STEP),
      ArrowRight: () => seekBy(SEEK_STEP),
      m: toggleMute,
      f: toggleFullscreen,
      n: () => hasNext && onNext(),
      PageDown: () => hasNext && onNext(),
      p: () => hasPrevious && onPrevious(),
      PageUp: () => hasPrevious && onPrevious(),
    };
    const action = actions[event.key];
    if (action && !(event.target instanceof HTMLButtonElement && (event.key === ' ' || event.key === 'Enter'))) {
      event.preventDefault();
      action();
    }
  };

  const status = overlay ? null : failed ? 'error' : !url || buffering ? 'loading' : null;
  return (
    <div
      ref={stage}
      className={`player ${controlsShown || !playing ? 'player--controls' : ''} ${playing ? '' : 'player--paused'}`}
      tabIndex={0}
      role="region"
      aria-label={t('player.label')}
      onKeyDown={onKeyDown}
      onMouseMove={revealControls}
      {...swipe}
    >
      {([activeSlot, activeSlot === 0 ? 1 : 0] as const).map((slot) =>
        slot === activeSlot ? (
          <video
            key={slot}
            ref={video}
            className="player__video"
            poster={poster}
            playsInline
            preload="metadata"
            data-testid="player-video"
            onPlay={() => {
              setPlaying(true);
              revealControls();
            }}
            onPause={() => {
              setPlaying(false);
              onPause?.();
            }}
            onWaiting={() => setBuffering(true)}
            onPlaying={() => setBuffering(false)}
            onCanPlay={() => setBuffering(false)}
            onTimeUpdate={(event) => {
              // The controls show whole seconds: the player renders once a second while it plays, not
              // at each of the element's four or so time updates a second.
              setTime(Math.floor(event.currentTarget.currentTime));
              onPosition(event.currentTarget.currentTime);
            }}
            onDurationChange={(event) => setDuration(event.currentTarget.duration || 0)}
            onEnded={onEnded}
            onError={() => setFailed(true)}
          >
            {subtitles.map((subtitle) => (
              <track key={subtitle.url} kind="subtitles" src={subtitle.url} srcLang={htmlLangOf(subtitle.lang)} label={subtitle.label} data-subtitle={subtitle.lang} />
            ))}
          </video>
        ) : (
          // The size of the player (so the stream starts on the rung it will play), never seen or heard.
          <video key={slot} ref={standbyVideo} className="player__video player__video--standby" playsInline preload="metadata" aria-hidden="true" tabIndex={-1} />
        ),
      )}
      {!overlay && captions.active && captions.lines.length > 0 && (
        <div className="player__captions" lang={htmlLangOf(captions.active.lang)} data-testid="player-captions">
          {captions.lines.map((line, i) => (
            <span key={i}>{line}</span>
          ))}
        </div>
      )}
      {overlay && <div className="player__overlay" style={{ backgroundImage: `url("${poster}")` }}>{overlay}</div>}
      {status === 'loading' && (
        <div className="player__status" role="status">
          <span className="spinner spinner--large" aria-hidden="true" />
          <span className="visually-hidden">{t('player.loading')}</span>
        </div>
      )}
      {status === 'error' && (
        <div className="player__status player__status--error" role="alert">
          <p>{t('player.error')}</p>
          <button type="button" className="button button--primary" onClick={() => setAttempt((count) => count + 1)}>
            {t('player.retry')}
          </button>
        </div>
      )}
      {!overlay && !failed && url && (
        <PlayerControls
          playing={playing}
          muted={muted}
          time={time}
          duration={duration}
          fullscreen={fullscreen}
          hasNext={hasNext}
          hasPrevious={hasPrevious}
          onTogglePlay={togglePlay}
          onSeek={(seconds) => {
            if (video.current) video.current.currentTime = seconds;
            revealControls();
          }}
          onToggleMute={toggleMute}
          onToggleFullscreen={toggleFullscreen}
          subtitleMenu={subtitles.length > 0 && <SubtitleMenu subtitles={subtitles} active={captions.active?.lang ?? null} onChoose={captions.choose} />}
          onNext={onNext}
          onPrevious={onPrevious}
        />
      )}
    </div>
  );
}
