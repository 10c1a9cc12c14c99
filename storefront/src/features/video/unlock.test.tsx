import { fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { User, Video } from '../../api/types';
import { AppShell } from '../../components/AppShell';
import { keepUserToken } from '../../lib/attribution';
import { ok, renderWithApp, serveApi, type ApiCall } from '../../testing/renderWithApp';
import { VideoPage } from './VideoPage';

const PRICE = 30;

let sent: ApiCall[];
let user: User;
let unlocked: Set<string>;
/** What POST /api/user/settings does; a test may make it fail. */
let settingsAnswer: 'ok' | 'fail';
/** What the wallet holds when POST /api/video/unlock spends from it; may differ from what GET /api/user said. */
let walletAtUnlock: () => number;

function video(): Video {
  const episode = (number: number) => ({
    id: `e${number}`,
    number,
    title: `Episode ${number}`,
    durationSeconds: 90,
    locked: number > 1 && !unlocked.has(`e${number}`),
    ready: true,
  });
  return {
    id: 'v1',
    title: 'The Heir Returns',
    cover: '/covers/v1.jpg',
    tags: [],
    episodeCount: 3,
    playCount: 10,
    description: '',
    freeEpisodes: 1,
    priceCoins: PRICE,
    favorited: false,
    resume: null,
    episodes: [episode(1), episode(2), episode(3)],
  };
}

/** The gateway as docs/api.md describes the catalog, the wallet and the settings, in memory. */
function serve(start: { coins: number; autoUnlock: boolean }) {
  user = { id: 'u1', kind: 'member', email: 'ada@example.com', emailVerified: true, coins: start.coins, bonusCoins: 0, vip: null, settings: { autoUnlock: start.autoUnlock } };
  unlocked = new Set();
  settingsAnswer = 'ok';
  walletAtUnlock = () => user.coins;
  sent = serveApi(
    {
      'GET /api/user': () => ok(user),
      'GET /api/video': () => ok(video()),
      'GET /api/homepage': ok({ carousel: { title: 'Featured Videos', items: [] }, sections: [] }),
      'GET /api/video/episode': (call) => {
        const id = call.query.get('id')!;
        const number = Number(id.slice(1));
        if (number > 1 && !unlocked.has(id)) return { code: 402, message: 'Locked', data: { episodeId: id, videoId: 'v1', priceCoins: PRICE, balance: user.coins } };
        return ok({ id, videoId: 'v1', number, title: `Episode ${number}`, durationSeconds: 90, nextEpisodeId: null, playback: { url: `/media/${id}/master.m3u8`, expiresAt: '2030-01-01T00:00:00Z' } });
      },
      'POST /api/video/unlock': (call) => {
        const balance = walletAtUnlock();
        if (balance < PRICE) return { code: 402, message: 'Not enough coins', data: { priceCoins: PRICE, balance } };
        unlocked.add(call.body!.episodeId as string);
        user = { ...user, coins: balance - PRICE };
        return ok({ episodeId: call.body!.episodeId, balance: user.coins });
      },
      'POST /api/user/settings': (call) => {
        if (settingsAnswer === 'fail') return { code: 422, message: 'autoUnlock must be true or false', data: null };
        user = { ...user, settings: { autoUnlock: call.body!.autoUnlock as boolean } };
        return ok(user);
      },
    },
    { fallback: (call) => ok(call.method === 'GET' ? [] : null) },
  ).calls;
}

function renderVideo() {
  renderWithApp([{ Component: AppShell, children: [{ path: '/videos/:id', Component: VideoPage }] }], { path: '/videos/v1?ep=e1' });
}

const calls = (method: string, path: string) => sent.filter((call) => call.method === method && call.path === path);
const episodeCalls = (id: string) => sent.filter((call) => call.path === '/api/video/episode' && call.query.get('id') === id);
/** The statics.png hits of one event, as their queries. */
const hits = (event: string) => calls('GET', '/api/statics.png').filter((call) => call.query.get('event') === event).map((call) => Object.fromEntries(call.query));

/** Waits for episode 1 to play, then plays on (the player's "n" key; swipe up and the end of an episode do the same). */
async function playOn() {
  await vi.waitFor(() => expect(episodeCalls('e1')).not.toHaveLength(0));
  await screen.findByRole('heading', { name: 'The Heir Returns' });
  await vi.waitFor(() => expect(calls('GET', '/api/user')).not.toHaveLength(0));
  fireEvent.keyDown(screen.getByRole('region', { name: 'Video player' }), { key: 'n' });
}

beforeEach(() => {
  localStorage.clear();
  keepUserToken('user-token-1');
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(() => Promise.resolve());
  vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => undefined);
  vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
});

describe('playing on into a locked episode', () => {
  it('with auto-unlock on and coins enough, unlocks it first and plays it without the sheet', async () => {
    serve({ coins: 50, autoUnlock: true });
    renderVideo();
    await playOn();

    expect(await screen.findByText(`Episode 2 unlocked for ${PRICE} coins`)).toBeTruthy();
    await vi.waitFor(() => expect(episodeCalls('e2')).toHaveLength(1));
    const unlock = calls('POST', '/api/video/unlock');
    expect(unlock.map((call) => call.body?.episodeId)).toEqual(['e2']);
    expect(sent.indexOf(unlock[0]!)).toBeLessThan(sent.indexOf(episodeCalls('e2')[0]!));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(await screen.findByRole('link', { name: 'Coins: 20' })).toBeTruthy();
    expect(hits('unlock')).toEqual([expect.objectContaining({ videoId: 'v1', episodeId: 'e2', coins: String(PRICE) })]);
  });

  it('with auto-unlock off, spends nothing and asks with the unlock sheet', async () => {
    serve({ coins: 50, autoUnlock: false });
    renderVideo();
    await playOn();

    const sheet = await screen.findByRole('dialog', { name: 'Unlock episode 2' });
    expect(calls('POST', '/api/video/unlock')).toHaveLength(0);
    expect(within(sheet).getByText(`${PRICE} coins`)).toBeTruthy();
    expect(within(sheet).getByText('Your balance: 50 coins')).toBeTruthy();
    expect((within(sheet).getByRole('switch', { name: /Auto-unlock next episodes/ }) as HTMLInputElement).checked).toBe(false);

    fireEvent.click(within(sheet).getByRole('button', { name: `Unlock for ${PRICE} coins` }));
    expect(await screen.findByText('Episode unlocked')).toBeTruthy();
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('POST', '/api/video/unlock').map((call) => call.body?.episodeId)).toEqual(['e2']);
    await vi.waitFor(() => expect(episodeCalls('e2').length).toBeGreaterThan(1));
    expect(hits('unlock')).toEqual([expect.objectContaining({ videoId: 'v1', episodeId: 'e2', coins: String(PRICE) })]);
    await vi.waitFor(() => expect(hits('video_view').map((hit) => hit.episodeId)).toEqual(['e1', 'e2']));
  });

  it('with auto-unlock on but too few coins, asks instead, with the ways to get coins or VIP', async () => {
    serve({ coins: 10, autoUnlock: true });
    renderVideo();
    await playOn();

    const sheet = await screen.findByRole('dialog', { name: 'Unlock episode 2' });
    expect(calls('POST', '/api/video/unlock')).toHaveLength(0);
    expect(hits('unlock')).toEqual([]);
    expect(within(sheet).getByText('Not enough coins to unlock this episode.')).toBeTruthy();
    expect(within(sheet).getByRole('link', { name: 'Get coins' }).getAttribute('href')).toBe('/shopping#coins');
    expect(within(sheet).getByRole('link', { name: 'Subscribe to unlock all' }).getAttribute('href')).toBe('/shopping#vip');
  });
});

describe('the unlock sheet', () => {
  it('says "not enough coins" when the unlock call answers 402, with the balance it gives', async () => {
    serve({ coins: 50, autoUnlock: false });
    walletAtUnlock = () => 20;
    renderVideo();
    await playOn();
    const sheet = await screen.findByRole('dialog', { name: 'Unlock episode 2' });
    fireEvent.click(within(sheet).getByRole('button', { name: `Unlock for ${PRICE} coins` }));

    expect(await within(sheet).findByText('Not enough coins to unlock this episode.')).toBeTruthy();
    expect(within(sheet).getByText('Your balance: 20 coins')).toBeTruthy();
    expect(within(sheet).queryByRole('button', { name: `Unlock for ${PRICE} coins` })).toBeNull();
    expect(within(sheet).getByRole('link', { name: 'Get coins' })).toBeTruthy();
  });

  it('turns auto-unlock on and off through the user settings, and turns back when the call fails', async () => {
    serve({ coins: 10, autoUnlock: false });
    renderVideo();
    await playOn();
    const sheet = await screen.findByRole('dialog', { name: 'Unlock episode 2' });
    const toggle = within(sheet).getByRole('switch', { name: /Auto-unlock next episodes/ }) as HTMLInputElement;

    fireEvent.click(toggle);
    await vi.waitFor(() => expect(calls('POST', '/api/user/settings')).toHaveLength(1));
    expect(calls('POST', '/api/user/settings')[0]!.body).toMatchObject({ autoUnlock: true });
    await vi.waitFor(() => expect(toggle.disabled).toBe(false));
    expect(toggle.checked).toBe(true);
    expect(user.settings.autoUnlock).toBe(true);

    settingsAnswer = 'fail';
    fireEvent.click(toggle);
    await vi.waitFor(() => expect(calls('POST', '/api/user/settings')).toHaveLength(2));
    expect(calls('POST', '/api/user/settings')[1]!.body).toMatchObject({ autoUnlock: false });
    await vi.waitFor(() => expect(toggle.disabled).toBe(false));
    expect(toggle.checked).toBe(true);
  });
});
