import { useCallback, useEffect, useRef } from 'react';
import { useRecordHistory } from './queries';

export const HISTORY_INTERVAL_MS = 5000;

/** Saves the watch position of an episode every few seconds while it moves, and once more on leave. */
export function useWatchHistory(episodeId: string | undefined) {
  const record = useRecordHistory();
  const recordRef = useRef(record.mutate);
  recordRef.current = record.mutate;
  const position = useRef<number | null>(null);
  const saved = useRef<number | null>(null);

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
    const timer = window.setInterval(() => save(false), HISTORY_INTERVAL_MS);
    const onHide = () => save(true);
    const onVisibility = () => document.visibilityState === 'hidden' && save(true);
    window.addEventListener('pagehide', onHide);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('pagehide', onHide);
      document.removeEventListener('visibilitychange', onVisibility);
      save(true);
    };
  }, [episodeId]);

  return useCallback((seconds: number) => {
    position.current = Math.floor(seconds);
  }, []);
}
