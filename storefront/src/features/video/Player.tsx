import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useT } from '../../i18n/I18nProvider';
import { attachStream } from './attachStream';
import { startPlaybackSession } from './playbackQuality';
import { PlayerControls } from './PlayerControls';
import { useSwipe } from './useSwipe';

interface PlayerProps {
  /** The HLS master playlist; absent while the episode loads, is locked or is being prepared. */
  url?: string;
  /** What the playback quality report of the source is about. */
  videoId: string;
  episodeId?: string;
  poster: string;
  startAt?: number;
  /** Shown over the poster instead of the video, e.g. the locked or preparing state. */
  overlay?: ReactNode;
  hasNext: boolean;
  hasPrevious: boolean;
  onNext: () => void;
  onPrevious: () => void;
  onEnded: () => void;
  onPosition: (seconds: number) => void;
}

const HIDE_CONTROLS_MS = 2800;
const SEEK_STEP = 5;

export function Player({ url, videoId, episodeId, poster, startAt = 0, overlay, hasNext, hasPrevious, onNext, onPrevious, onEnded, onPosition }: PlayerProps) {
  const t = useT();
  const stage = useRef<HTMLDivElement>(null);
  const video = useRef<HTMLVideoElement>(null);
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

  useEffect(() => {
    const element = video.current;
    if (!element || !url) return;
    setFailed(false);
    setBuffering(true);
    setTime(0);
    let handle: { destroy: () => void } | null = null;
    let cancelled = false;
    // One quality report per source: it ends with this effect (next episode, retry, leaving the page).
    const session = startPlaybackSession(element, { videoId, episodeId });
    const fail = (error: string) => {
      session.fail(error);
      setFailed(true);
    };
    const onMetadata = () => {
      if (startAt > 0 && startAt < element.duration - 3) element.currentTime = startAt;
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
    element.addEventListener('loadedmetadata', onMetadata, { once: true });
    attachStream(element, url, fail)
      .then((attached) => {
        if (cancelled) attached.destroy();
        else handle = attached;
      })
      .catch(() => fail('playerLoadError'));
    return () => {
      cancelled = true;
      element.removeEventListener('loadedmetadata', onMetadata);
      session.end();
      handle?.destroy();
    };
    // startAt applies to the source it came with, not to later resume updates.
  }, [url, attempt]);

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
      <video
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
        onPause={() => setPlaying(false)}
        onWaiting={() => setBuffering(true)}
        onPlaying={() => setBuffering(false)}
        onCanPlay={() => setBuffering(false)}
        onTimeUpdate={(event) => {
          setTime(event.currentTarget.currentTime);
          onPosition(event.currentTarget.currentTime);
        }}
        onDurationChange={(event) => setDuration(event.currentTarget.duration || 0)}
        onEnded={onEnded}
        onError={() => setFailed(true)}
      />
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
          onNext={onNext}
          onPrevious={onPrevious}
        />
      )}
    </div>
  );
}
