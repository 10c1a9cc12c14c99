import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ok, renderHookWithApp, serveApi, type ServedApi } from '../../testing/renderWithApp';
import { master, renderPlayer, stubPlayback, watch } from './playerTesting';
import { HISTORY_INTERVAL_MS, useWatchHistory } from './useWatchHistory';

// jsdom plays no HLS: a stream attaches and buffers nothing.
vi.mock('./attachStream', async (original) => ({
  ...(await original<typeof import('./attachStream')>()),
  attachStream: async () => ({ bufferAhead: () => undefined, destroy: () => undefined }),
}));
stubPlayback();

let api: ServedApi;

beforeEach(() => {
  localStorage.clear();
  api = serveApi({ '/api/user/guest': ok({ token: 'guest-token', user: { id: 'g1', kind: 'guest' } }) });
});

/** The positions saved, with whether each was sent to outlive the page. */
const saves = () => api.calls.filter((call) => call.path === '/api/user/history').map(({ body, keepalive }) => ({ body, keepalive }));

describe('the watch position saves', () => {
  it('on pause or end at once, as a final save, and not again while the playhead has not moved', async () => {
    const { result } = await renderHookWithApp(() => useWatchHistory('e1'));
    act(() => result.current.onPosition(12.7));
    act(() => result.current.onStop());
    await waitFor(() => expect(saves()).toHaveLength(1));
    expect(saves()[0]).toEqual({ body: { episodeId: 'e1', positionSeconds: 12, final: true }, keepalive: true });
    act(() => result.current.onStop());
    act(() => result.current.onPosition(30));
    act(() => result.current.onStop());
    await waitFor(() => expect(saves()).toHaveLength(2));
    expect(saves()[1]!.body).toEqual({ episodeId: 'e1', positionSeconds: 30, final: true });
  });

  it('every interval while it moves, not final, and finally when the episode changes', async () => {
    // The interval's tick, called by hand (fake timers would stop testing-library's own waits).
    const setInterval = vi.spyOn(window, 'setInterval');
    const tick = () => {
      const [save] = setInterval.mock.calls.filter(([, ms]) => ms === HISTORY_INTERVAL_MS).at(-1)!;
      (save as () => void)();
    };
    const { result, rerender } = await renderHookWithApp(({ episode }: { episode: string }) => useWatchHistory(episode), { initialProps: { episode: 'e1' } });
    act(() => result.current.onPosition(4));
    act(tick);
    await waitFor(() => expect(saves()).toHaveLength(1));
    expect(saves()[0]).toEqual({ body: { episodeId: 'e1', positionSeconds: 4 }, keepalive: false });
    act(() => result.current.onPosition(8));
    rerender({ episode: 'e2' });
    await waitFor(() => expect(saves()).toHaveLength(2));
    expect(saves()[1]!.body).toEqual({ episodeId: 'e1', positionSeconds: 8, final: true });
    // Nothing played of the next one yet: a pause there saves nothing.
    act(() => result.current.onStop());
    act(tick);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(saves()).toHaveLength(2);
  });
});

describe("the player's pause", () => {
  it('reaches the page, from the viewer or at the end, but never from the standby element', async () => {
    const onPause = vi.fn();
    const player = renderPlayer(master('e1'), master('e2'), { onPause });
    const element = await screen.findByTestId('player-video');
    watch(element);
    await waitFor(() => expect(player.standby()).not.toBeNull());
    act(() => void fireEvent.pause(player.standby()!));
    expect(onPause).not.toHaveBeenCalled();
    act(() => void fireEvent.pause(element));
    expect(onPause).toHaveBeenCalledTimes(1);
  });
});
