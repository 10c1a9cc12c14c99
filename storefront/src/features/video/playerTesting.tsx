import { act, cleanup, fireEvent, render } from '@testing-library/react';
import type { ComponentProps } from 'react';
import { afterEach, beforeEach, vi } from 'vitest';
import { I18nProvider } from '../../i18n/I18nProvider';
import { WATCHED_SECONDS } from './attachStream';
import { Player } from './Player';

/** For a test file of the player: jsdom plays nothing, so play() only says it started. */
export function stubPlayback(): void {
  beforeEach(() => {
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockResolvedValue(undefined);
    vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => undefined);
  });
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });
}

/**
 * The viewer stays with the episode on `element` (which jsdom cannot play): it plays on from 0 to
 * `seconds` (WATCHED_SECONDS by default), as the element's time updates tell the player.
 */
export function watch(element: Element, seconds = WATCHED_SECONDS): void {
  let time = 0;
  Object.defineProperty(element, 'paused', { configurable: true, get: () => false });
  Object.defineProperty(element, 'currentTime', { configurable: true, get: () => time, set: (value: number) => void (time = value) });
  act(() => void fireEvent.playing(element));
  for (const at of [0, seconds]) {
    time = at;
    act(() => void fireEvent.timeUpdate(element));
  }
}

export const master = (episode: string) => `/media/g/grant/episodes/${episode}/hls/master.m3u8`;

/**
 * A player on `url` with `preloadUrl` next (and any other of its props in `extra`); `show` moves it on
 * as a swipe does, `standby` is the second element.
 */
export function renderPlayer(url: string, preloadUrl?: string, extra: Partial<ComponentProps<typeof Player>> = {}) {
  const props = { videoId: 'grant', poster: '/cover.jpg', hasNext: true, hasPrevious: false, onNext: () => {}, onPrevious: () => {}, onEnded: () => {}, onPosition: () => {}, ...extra };
  const view = render(
    <I18nProvider>
      <Player {...props} url={url} preloadUrl={preloadUrl} episodeId={url} />
    </I18nProvider>,
  );
  return {
    ...view,
    show: (next: string, nextPreload?: string) =>
      view.rerender(
        <I18nProvider>
          <Player {...props} url={next} preloadUrl={nextPreload} episodeId={next} />
        </I18nProvider>,
      ),
    standby: () => view.container.querySelector('.player__video--standby'),
  };
}
