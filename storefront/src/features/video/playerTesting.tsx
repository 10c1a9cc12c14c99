import { cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { I18nProvider } from '../../i18n/I18nProvider';
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

export const master = (episode: string) => `/media/g/grant/episodes/${episode}/hls/master.m3u8`;

/** A player on `url` with `preloadUrl` next; `show` moves it on as a swipe does, `standby` is the second element. */
export function renderPlayer(url: string, preloadUrl?: string) {
  const props = { videoId: 'grant', poster: '/cover.jpg', hasNext: true, hasPrevious: false, onNext: () => {}, onPrevious: () => {}, onEnded: () => {}, onPosition: () => {} };
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
