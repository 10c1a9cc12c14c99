import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { WATCHED_SECONDS } from './attachStream';
import { master, renderPlayer, stubPlayback, watch } from './playerTesting';

// The browser's own HLS (as on an iPhone): each stream is the element's src, so what every element
// holds can be read off it.
stubPlayback();
beforeEach(() => {
  vi.spyOn(HTMLMediaElement.prototype, 'canPlayType').mockImplementation((type) => (type === 'application/vnd.apple.mpegurl' ? 'maybe' : ''));
});

const srcOf = (element: Element | null) => (element as HTMLVideoElement | null)?.getAttribute('src') ?? null;

describe('the next episode standing by', () => {
  it('is attached to a second element once the viewer has stayed with this one, and a swipe shows that very element', async () => {
    const player = renderPlayer(master('e1'), master('e2'));
    const first = await screen.findByTestId('player-video');
    await waitFor(() => expect(srcOf(first)).toBe(master('e1')));
    // Nothing for the next one while this one has not started, nor in its first seconds: its start
    // has the network to itself, and a viewer who leaves at once has not paid for the next.
    expect(srcOf(player.standby())).toBeNull();
    watch(first, WATCHED_SECONDS - 0.5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(srcOf(player.standby())).toBeNull();

    act(() => void fireEvent.timeUpdate(Object.assign(first, { currentTime: WATCHED_SECONDS })));
    await waitFor(() => expect(srcOf(player.standby())).toBe(master('e2')));
    const standing = player.standby()!;

    player.show(master('e2'), master('e3'));
    const playing = screen.getByTestId('player-video');
    expect(playing).toBe(standing);
    expect(srcOf(playing)).toBe(master('e2'));
    // The playing video comes first in the page; the one it replaced lets its stream go and stands by.
    expect(player.container.querySelector('video')).toBe(playing);
    expect(player.standby()).toBe(first);
    expect(srcOf(first)).toBeNull();

    watch(playing);
    await waitFor(() => expect(srcOf(first)).toBe(master('e3')));
  });

  it('is let go when the viewer picks another episode, which starts on the playing element', async () => {
    const player = renderPlayer(master('e1'), master('e2'));
    const first = await screen.findByTestId('player-video');
    await waitFor(() => expect(srcOf(first)).toBe(master('e1')));
    watch(first);
    await waitFor(() => expect(srcOf(player.standby())).toBe(master('e2')));

    player.show(master('e4'), master('e5'));
    expect(screen.getByTestId('player-video')).toBe(first);
    await waitFor(() => expect(srcOf(first)).toBe(master('e4')));
    expect(srcOf(player.standby())).toBeNull();
  });

  it('waits again for the viewer to stay with an episode come back to', async () => {
    const player = renderPlayer(master('e1'), master('e2'));
    const first = await screen.findByTestId('player-video');
    await waitFor(() => expect(srcOf(first)).toBe(master('e1')));
    watch(first);
    await waitFor(() => expect(srcOf(player.standby())).toBe(master('e2')));

    player.show(master('e4'), master('e5'));
    await waitFor(() => expect(srcOf(first)).toBe(master('e4')));
    player.show(master('e1'), master('e2'));
    await waitFor(() => expect(srcOf(first)).toBe(master('e1')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(srcOf(player.standby())).toBeNull();
    watch(first);
    await waitFor(() => expect(srcOf(player.standby())).toBe(master('e2')));
  });
});
