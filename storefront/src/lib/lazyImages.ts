// Lazy image loading with the product's constants (spec section 9).
export const LAZY_IMAGE = {
  cacheSize: 200,
  throttleMs: 200,
  preloadScreens: 1.3,
  retries: 3,
} as const;

export type ImageState = 'loading' | 'loaded' | 'error';

/** Remembers the last 200 loaded sources, so a poster seen before shows at once without a fade. */
export class LoadedImageCache {
  private readonly sources = new Set<string>();

  constructor(private readonly capacity: number = LAZY_IMAGE.cacheSize) {}

  has(source: string): boolean {
    return this.sources.has(source);
  }

  add(source: string): void {
    this.sources.delete(source);
    this.sources.add(source);
    if (this.sources.size > this.capacity) {
      const oldest = this.sources.values().next().value;
      if (oldest !== undefined) this.sources.delete(oldest);
    }
  }

  get size(): number {
    return this.sources.size;
  }
}

export const loadedImages = new LoadedImageCache();

/** Calls fn at most once per wait, and once more at the end of a burst. */
export function throttle(fn: () => void, wait: number = LAZY_IMAGE.throttleMs): () => void {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    const now = Date.now();
    const remaining = wait - (now - last);
    if (remaining <= 0) {
      last = now;
      fn();
    } else if (!timer) {
      timer = setTimeout(() => {
        timer = null;
        last = Date.now();
        fn();
      }, remaining);
    }
  };
}

interface Rect {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** True when the element is within 1.3 screens of the viewport, so it loads before it scrolls in. */
export function isNearViewport(rect: Rect, viewportWidth: number, viewportHeight: number): boolean {
  const reachY = viewportHeight * LAZY_IMAGE.preloadScreens;
  const reachX = viewportWidth * LAZY_IMAGE.preloadScreens;
  return rect.top < reachY && rect.bottom > viewportHeight - reachY && rect.left < reachX && rect.right > viewportWidth - reachX;
}

type Watcher = { element: Element; onNear: () => void };

const watchers = new Set<Watcher>();
let listening = false;

const checkWatchers = throttle(() => {
  for (const watcher of [...watchers]) {
    if (isNearViewport(watcher.element.getBoundingClientRect(), window.innerWidth, window.innerHeight)) {
      watchers.delete(watcher);
      watcher.onNear();
    }
  }
});

/** Calls onNear once, when the element first comes within reach; one throttled listener serves all images. */
export function watchNearViewport(element: Element, onNear: () => void): () => void {
  const watcher = { element, onNear };
  watchers.add(watcher);
  if (!listening) {
    listening = true;
    window.addEventListener('scroll', checkWatchers, { passive: true, capture: true });
    window.addEventListener('resize', checkWatchers, { passive: true });
  }
  queueMicrotask(checkWatchers);
  return () => {
    watchers.delete(watcher);
  };
}
