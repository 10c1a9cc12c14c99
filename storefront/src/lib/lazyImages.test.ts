import { afterEach, describe, expect, it, vi } from 'vitest';
import { isNearViewport, LAZY_IMAGE, LoadedImageCache, throttle } from './lazyImages';

afterEach(() => vi.useRealTimers());

describe('lazy image constants', () => {
  it('are the product’s: 200 cached, 200 ms throttle, 1.3 screens, 3 retries', () => {
    expect(LAZY_IMAGE).toEqual({ cacheSize: 200, throttleMs: 200, preloadScreens: 1.3, retries: 3 });
  });

  it('remember at most 200 sources, forgetting the least recently loaded', () => {
    const cache = new LoadedImageCache();
    for (let index = 0; index < 200; index++) cache.add(`/cover/${index}.jpg`);
    cache.add('/cover/0.jpg');
    cache.add('/cover/200.jpg');
    expect(cache.size).toBe(200);
    expect(cache.has('/cover/0.jpg')).toBe(true);
    expect(cache.has('/cover/1.jpg')).toBe(false);
    expect(cache.has('/cover/200.jpg')).toBe(true);
  });

  it('check positions at most once per 200 ms', () => {
    vi.useFakeTimers();
    const check = vi.fn();
    const throttled = throttle(check);
    throttled();
    throttled();
    throttled();
    expect(check).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(199);
    expect(check).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(check).toHaveBeenCalledTimes(2);
  });

  it('load images within 1.3 screens of the viewport', () => {
    const at = (top: number) => ({ top, bottom: top + 100, left: 0, right: 100 });
    expect(isNearViewport(at(0), 400, 1000)).toBe(true);
    expect(isNearViewport(at(1290), 400, 1000)).toBe(true);
    expect(isNearViewport(at(1310), 400, 1000)).toBe(false);
    expect(isNearViewport(at(-420), 400, 1000)).toBe(false);
    expect(isNearViewport({ top: 0, bottom: 100, left: 600, right: 700 }, 400, 1000)).toBe(false);
  });
});
