import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PLAYING_BUFFER_SECONDS, STANDBY_BUFFER_SECONDS, WATCHED_SECONDS } from './attachStream';
import { master, renderPlayer, stubPlayback, watch } from './playerTesting';

// How far ahead each stream buffers, as the player asks attachStream (hls.js's maxBufferLength).
const streams = vi.hoisted(() => [] as { url: string; buffer: number[] }[]);
vi.mock('./attachStream', async (original) => ({
  ...(await original<typeof import('./attachStream')>()),
  attachStream: async (_video: HTMLVideoElement, url: string, _onFatal: unknown, bufferSeconds: number) => {
    const stream = { url, buffer: [bufferSeconds] };
    streams.push(stream);
    return { bufferAhead: (seconds: number) => void stream.buffer.push(seconds), destroy: () => undefined };
  },
}));

stubPlayback();
beforeEach(() => {
  streams.length = 0;
});

const bufferOf = (url: string) => streams.find((stream) => stream.url === url)?.buffer;

describe('how far ahead an episode buffers', () => {
  it('is its start only in its first seconds, then the full buffer once the viewer has stayed', async () => {
    renderPlayer(master('e1'), master('e2'));
    await waitFor(() => expect(bufferOf(master('e1'))).toEqual([STANDBY_BUFFER_SECONDS]));
    const element = screen.getByTestId('player-video');
    watch(element, WATCHED_SECONDS - 1);
    expect(bufferOf(master('e1'))).toEqual([STANDBY_BUFFER_SECONDS]);
    watch(element, WATCHED_SECONDS);
    expect(bufferOf(master('e1'))).toEqual([STANDBY_BUFFER_SECONDS, PLAYING_BUFFER_SECONDS]);
    // The next episode stands by with its start only.
    await waitFor(() => expect(bufferOf(master('e2'))).toEqual([STANDBY_BUFFER_SECONDS]));
  });

  it('grows for the episode swiped to only once the viewer has stayed with it too', async () => {
    const player = renderPlayer(master('e1'), master('e2'));
    await waitFor(() => expect(bufferOf(master('e1'))).toBeDefined());
    watch(screen.getByTestId('player-video'));
    await waitFor(() => expect(bufferOf(master('e2'))).toEqual([STANDBY_BUFFER_SECONDS]));
    player.show(master('e2'), master('e3'));
    const swiped = screen.getByTestId('player-video');
    expect(bufferOf(master('e2'))).toEqual([STANDBY_BUFFER_SECONDS]);
    watch(swiped);
    expect(bufferOf(master('e2'))).toEqual([STANDBY_BUFFER_SECONDS, PLAYING_BUFFER_SECONDS]);
  });
});
