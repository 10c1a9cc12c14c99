import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useRecordHistory } from './queries';

export const HISTORY_INTERVAL_MS = 5000;

export interface WatchHistory {
  /** The playhead as it moves: saved every HISTORY_INTERVAL_MS while it changes. */
  onPosition: (seconds: number) => void;
  /**
   * The viewer paused or the episode ended: the position is saved at once as a final one, which the
   * server writes straight away and counts as the end of a viewing (not on its next interval).
   */
  onStop: () => void;
}

/** Saves the watch position of an episode every few seconds while it moves, and at once on pause, end and leave. */
export function useWatchHistory(episodeId: string | undefined): WatchHistory {
  const record = useRecordHistory();
  const recordRef = useRef(record.mutate);
  recordRef.current = record.mutate;
  const position = useRef<number | null>(null);
  const saved = useRef<number | null>(null);
  const saveFinal = useRef<() => void>(() => undefined);

  useEffect(() => {
    if (!episodeId) return;
    position.current = null;
    saved.current = null;
    const save = (onLeave: boolean) => {
      const seconds = position.current;
      if (seconds === null || seconds === saved.current) return;
      saved.current = seconds;
      recordRef.current({ episodeId, positionSeconds: seconds, onLeave });
    };
    saveFinal.current = () => save(true);
    const timer = window.setInterval(() => save(false), HISTORY_INTERVAL_MS);
    const onHide = () => save(true);
    const onVisibility = () => document.visibilityState === 'hidden' && save(true);
    window.addEventListener('pagehide', onHide);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('pagehide', onHide);
      document.removeEventListener('visibilitychange', onVisibility);
      saveFinal.current = () => undefined;
      save(true);
    };
  }, [episodeId]);

  const onPosition = useCallback((seconds: number) => {
    position.current = Math.floor(seconds);
  }, []);
  return useMemo(() => ({ onPosition, onStop: () => saveFinal.current() }), [onPosition]);
}
