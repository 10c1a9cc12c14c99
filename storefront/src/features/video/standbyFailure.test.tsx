import { act, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { master, renderPlayer, stubPlayback, watch } from './playerTesting';

// hls.js's fatal errors, which jsdom cannot produce: every stream attached is recorded with the
// callback its fatal error goes to.
const attached = vi.hoisted(() => [] as { url: string; onFatal: (errorType: string) => void; destroyed: boolean }[]);
vi.mock('./attachStream', async (original) => ({
  ...(await original<typeof import('./attachStream')>()),
  attachStream: async (_video: HTMLVideoElement, url: string, onFatal: (errorType: string) => void) => {
    const stream = { url, onFatal, destroyed: false };
    attached.push(stream);
    return { bufferAhead: () => undefined, destroy: () => void (stream.destroyed = true) };
  },
}));

stubPlayback();
beforeEach(() => {
  attached.length = 0;
});

const streamsOf = (url: string) => attached.filter((stream) => stream.url === url);

/** Episode 1 plays and episode 2 stands by. */
async function standingBy() {
  const { show } = renderPlayer(master('e1'), master('e2'));
  await waitFor(() => expect(streamsOf(master('e1'))).toHaveLength(1));
  watch(screen.getByTestId('player-video'));
  await waitFor(() => expect(streamsOf(master('e2'))).toHaveLength(1));
  return show;
}

describe('a standby stream that fails', () => {
  it('is let go while it stands by, and a swipe starts that episode afresh', async () => {
    const show = await standingBy();
    act(() => streamsOf(master('e2'))[0]!.onFatal('networkError'));
    expect(streamsOf(master('e2'))[0]!.destroyed).toBe(true);
    expect(screen.queryByText('This episode could not be played.')).toBeNull();

    show(master('e2'), master('e3'));
    await waitFor(() => expect(streamsOf(master('e2'))).toHaveLength(2));
    expect(screen.queryByText('This episode could not be played.')).toBeNull();
  });

  it('once swiped to and playing, shows the error with its retry', async () => {
    const show = await standingBy();
    show(master('e2'), master('e3'));
    await waitFor(() => expect(streamsOf(master('e1'))[0]!.destroyed).toBe(true));
    expect(streamsOf(master('e2'))).toHaveLength(1);

    act(() => streamsOf(master('e2'))[0]!.onFatal('mediaError'));
    expect(await screen.findByText('This episode could not be played.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});
