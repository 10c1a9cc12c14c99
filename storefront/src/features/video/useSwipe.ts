import { useRef } from 'react';

const SWIPE_DISTANCE = 60;
const TAP_DISTANCE = 10;

interface SwipeHandlers {
  onSwipeUp: () => void;
  onSwipeDown: () => void;
  onTap: () => void;
}

/** Vertical swipes move between episodes on a phone, the way short-drama apps do; a tap toggles playback. */
export function useSwipe({ onSwipeUp, onSwipeDown, onTap }: SwipeHandlers) {
  const start = useRef<{ x: number; y: number } | null>(null);
  return {
    onTouchStart: (event: React.TouchEvent) => {
      const touch = event.touches[0];
      start.current = touch ? { x: touch.clientX, y: touch.clientY } : null;
    },
    onTouchEnd: (event: React.TouchEvent) => {
      const origin = start.current;
      const touch = event.changedTouches[0];
      start.current = null;
      if (!origin || !touch || (event.target as HTMLElement).closest('.player__controls')) return;
      const dx = touch.clientX - origin.x;
      const dy = touch.clientY - origin.y;
      if (Math.abs(dy) > SWIPE_DISTANCE && Math.abs(dy) > Math.abs(dx) * 1.5) {
        event.preventDefault();
        if (dy < 0) onSwipeUp();
        else onSwipeDown();
      } else if (Math.abs(dx) < TAP_DISTANCE && Math.abs(dy) < TAP_DISTANCE) {
        event.preventDefault();
        onTap();
      }
    },
    onClick: (event: React.MouseEvent) => {
      // Mouse clicks on the picture toggle playback; touches were handled above.
      if ((event.target as HTMLElement).tagName === 'VIDEO') onTap();
    },
  };
}
