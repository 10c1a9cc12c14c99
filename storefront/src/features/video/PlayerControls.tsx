import type { ReactNode } from 'react';
import { ExpandIcon, MuteIcon, NextIcon, PauseIcon, PlayIcon, VolumeIcon } from '../../components/PageIcons';
import { useT } from '../../i18n/I18nProvider';
import { formatClock } from '../../lib/format';

interface PlayerControlsProps {
  playing: boolean;
  muted: boolean;
  time: number;
  duration: number;
  fullscreen: boolean;
  hasNext: boolean;
  hasPrevious: boolean;
  onTogglePlay: () => void;
  onSeek: (seconds: number) => void;
  onToggleMute: () => void;
  onToggleFullscreen: () => void;
  /** The subtitle button and its menu, when the episode has subtitles. */
  subtitleMenu?: ReactNode;
  onNext: () => void;
  onPrevious: () => void;
}

export function PlayerControls(props: PlayerControlsProps) {
  const t = useT();
  const { playing, muted, time, duration, fullscreen, hasNext, hasPrevious } = props;
  return (
    <>
      <button
        type="button"
        className="player__big-play"
        onClick={props.onTogglePlay}
        aria-label={playing ? t('player.pause') : t('player.play')}
      >
        {playing ? <PauseIcon size={34} /> : <PlayIcon size={34} />}
      </button>
      <div className="player__controls">
        <input
          type="range"
          className="player__seek"
          min={0}
          max={duration || 0}
          step={0.1}
          value={Math.min(time, duration || 0)}
          onChange={(event) => props.onSeek(Number(event.target.value))}
          aria-label={t('player.seek')}
          aria-valuetext={`${formatClock(time)} / ${formatClock(duration)}`}
          style={{ '--progress': `${duration ? (time / duration) * 100 : 0}%` } as React.CSSProperties}
        />
        <div className="player__bar">
          <button type="button" className="icon-button" onClick={props.onTogglePlay} aria-label={playing ? t('player.pause') : t('player.play')}>
            {playing ? <PauseIcon /> : <PlayIcon />}
          </button>
          <button type="button" className="icon-button" onClick={props.onToggleMute} aria-label={muted ? t('player.unmute') : t('player.mute')}>
            {muted ? <MuteIcon /> : <VolumeIcon />}
          </button>
          <span className="player__time" aria-hidden="true">
            {formatClock(time)} / {formatClock(duration)}
          </span>
          <span className="player__spacer" />
          {hasPrevious && (
            <button type="button" className="icon-button" onClick={props.onPrevious} aria-label={t('player.previous')}>
              <NextIcon className="icon--flipped" />
            </button>
          )}
          {hasNext && (
            <button type="button" className="icon-button" onClick={props.onNext} aria-label={t('player.next')}>
              <NextIcon />
            </button>
          )}
          {props.subtitleMenu}
          <button type="button" className="icon-button" onClick={props.onToggleFullscreen} aria-label={fullscreen ? t('player.exitFullscreen') : t('player.fullscreen')}>
            <ExpandIcon />
          </button>
        </div>
      </div>
    </>
  );
}
