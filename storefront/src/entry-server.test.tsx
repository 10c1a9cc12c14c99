import { QueryClient } from '@tanstack/react-query';
import { waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fillQueries, type PageFacts } from './api/pageFacts';
import type { VideoCard } from './api/types';
import { languageOf, renderPage } from './entry-server';
import { App } from './App';
import { loadLanguage } from './i18n/languages';
import { noteLanding } from './lib/attribution';
import { takeOver as takeOverDrawn } from './lib/takeover';
import { AppRoutes } from './router';
import { stubPlayback } from './features/video/playerTesting';

const card = (id: string, title: string): VideoCard => ({ id, title, cover: `/media/public/covers/${id}.jpg`, tags: ['Romance'], episodeCount: 24, playCount: 1234 });
const page = (items: VideoCard[]) => ({ items, page: 1, size: 12, hasMore: false });

const facts: PageFacts = {
  homepage: {
    carousel: { title: 'Featured Videos', items: [card('heir', 'The Heir Returns'), card('bride', 'The Runaway Bride')] },
    sections: [{ id: 'romance', title: 'Romance', items: [card('bride', 'The Runaway Bride'), card('ceo', 'My CEO Husband')] }],
  },
  rankings: { top: page([card('ceo', 'My CEO Husband')]), trending: page([]), new: page([card('heir', 'The Heir Returns')]) },
};

/** A series as a visitor who has unlocked nothing sees it (the series page's facts, and the viewer's own answer here). */
const video = {
  ...card('heir', 'The Heir Returns'),
  description: 'A heir comes home.',
  freeEpisodes: 1,
  priceCoins: 30,
  favorited: false,
  resume: null,
  episodes: [1, 2].map((number) => ({ id: `e${number}`, number, title: `Episode ${number}`, durationSeconds: 60, locked: number > 1, ready: true })),
};

const episode = {
  id: 'e1',
  videoId: 'heir',
  number: 1,
  title: 'Episode 1',
  durationSeconds: 60,
  nextEpisodeId: 'e2',
  playback: { url: '/media/heir/e1/master.m3u8', expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
  subtitles: [],
};

const calls: string[] = [];
beforeEach(() => {
  localStorage.clear();
  calls.length = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname, search } = new URL(url, 'http://localhost');
      calls.push(pathname + search);
      const data = pathname === '/api/user' ? { id: 'u1', kind: 'guest', email: null, coins: 5, vip: null } : pathname === '/api/homepage/query' ? page([card('heir', 'The Heir Returns')]) : pathname === '/api/video' ? video : pathname === '/api/video/episode' ? episode : pathname === '/api/homepage' ? facts.homepage : [];
      return new Response(JSON.stringify({ code: 200, message: 'ok', data }), { headers: { 'content-type': 'application/json' } });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

/** The browser's side, as main.tsx does it: the page's facts in the cache, then the takeover of the drawn markup. */
async function takeOver(app: HTMLElement, path: string, pageFacts: PageFacts = facts) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 30_000 } } });
  fillQueries(queryClient, pageFacts);
  const initial = await loadLanguage('en');
  const how = takeOverDrawn(
    app,
    <App queryClient={queryClient} initial={initial}>
      <MemoryRouter initialEntries={[path]}>
        <AppRoutes />
      </MemoryRouter>
    </App>,
    true,
  );
  expect(how).toBe('hydrated');
}

describe('the home page drawn by the gateway', () => {
  // The series page's player: jsdom plays nothing.
  stubPlayback();

  it('holds the carousel and the rows of the first screen, in the language asked for', async () => {
    const english = await renderPage('/', 'en-US,en;q=0.9', facts);
    expect(english.htmlLang).toBe('en');
    document.body.innerHTML = `<div id="app">${english.html}</div>`;
    const app = document.getElementById('app')!;
    expect(app.querySelector('.carousel__backdrop')?.getAttribute('style')).toContain('/media/public/covers/heir.jpg');
    expect([...app.querySelectorAll('.row .section-title')].map((title) => title.textContent)).toEqual(['Top this week']);
    // Nothing of one viewer's own: no "continue watching", and the header as for a visitor not signed in.
    expect(app.textContent).not.toContain('Continue watching');
    expect(app.querySelector('.header__account')?.textContent).toBe('Sign in');

    const spanish = await renderPage('/', 'fr;q=0.4, es-MX;q=0.8', facts);
    expect(spanish.htmlLang).toBe('es');
    expect(spanish.html).toContain('Inicio');
  });

  it('is taken over by the first render in the browser without drawing it again', async () => {
    const drawn = await renderPage('/', 'en', facts);
    document.body.innerHTML = `<div id="app" data-server-rendered>${drawn.html}</div>`;
    const app = document.getElementById('app')!;
    const backdrop = app.querySelector('.carousel__backdrop');
    const poster = app.querySelector('.carousel__poster img');
    const header = app.querySelector('header');
    expect(backdrop && poster && header).toBeTruthy();

    await takeOver(app, '/');
    // The same elements, not copies: the largest picture keeps its first paint.
    expect(app.querySelector('.carousel__backdrop')).toBe(backdrop);
    expect(app.querySelector('.carousel__poster img')).toBe(poster);
    expect(app.querySelector('header')).toBe(header);
    expect(app.querySelectorAll('.shell')).toHaveLength(1);
    expect(app.querySelectorAll('.carousel')).toHaveLength(1);
    // The page's data came with it: only the viewer's own calls go out.
    expect(calls.filter((call) => call.startsWith('/api/homepage'))).toEqual([]);
    // The rows below the first screen follow, one task each.
    await waitFor(() => expect([...app.querySelectorAll('.row .section-title')].map((title) => title.textContent)).toEqual(['Top this week', 'New releases', 'Romance']));
    // And it is live: a tab switch renders the browse panel.
    app.querySelector<HTMLButtonElement>('[data-tab="browse"]')!.click();
    await waitFor(() => expect(app.querySelector('[data-tab="browse"]')?.getAttribute('aria-selected')).toBe('true'));
  });

  it('keeps a new visitor\'s page as drawn, even once their first call has made them a guest', async () => {
    noteLanding();
    // The current-user call answered before the page's first render: a guest, with no history yet.
    localStorage.setItem('cliffhanger.userToken', 'new-guest-token');
    const drawn = await renderPage('/', 'en', facts);
    document.body.innerHTML = `<div id="app" data-server-rendered>${drawn.html}</div>`;
    const app = document.getElementById('app')!;
    const rows = [...app.querySelectorAll('.row')];
    const pictures = [...app.querySelectorAll('.row img')];
    expect(pictures.length).toBeGreaterThan(0);
    await takeOver(app, '/');
    expect([...app.querySelectorAll('.row')]).toEqual(rows);
    expect([...app.querySelectorAll('.row img')]).toEqual(pictures);
    expect(calls.some((call) => call.includes('sectionId=continue'))).toBe(false);
  });

  it('keeps a returning viewer\'s place for "continue watching" until it answers', async () => {
    localStorage.setItem('cliffhanger.userToken', 'returning-token');
    noteLanding();
    const drawn = await renderPage('/', 'en', facts);
    document.body.innerHTML = `<div id="app" data-server-rendered>${drawn.html}</div>`;
    const app = document.getElementById('app')!;
    const backdrop = app.querySelector('.carousel__backdrop');
    await takeOver(app, '/');
    expect(app.querySelector('.carousel__backdrop')).toBe(backdrop);
    await waitFor(() => expect(app.querySelector('#section-continue')?.textContent).toBe('Continue watching'));
    expect(calls).toContain('/api/homepage/query?sectionId=continue&page=1&size=12');
  });

  it('draws a series page from the series as a new visitor sees it, the player on its cover, and hands it over', async () => {
    const drawn = await renderPage('/videos/heir', 'en', { video });
    document.body.innerHTML = `<div id="app" data-server-rendered>${drawn.html}</div>`;
    const app = document.getElementById('app')!;
    const player = app.querySelector('video.player__video');
    expect(player?.getAttribute('poster')).toBe('/media/public/covers/heir.jpg');
    expect(app.querySelector('h1')?.textContent).toBe('The Heir Returns');
    expect(app.querySelector('[data-testid="episode-2"]')?.getAttribute('aria-label')).toContain('Locked');

    await takeOver(app, '/videos/heir', { video });
    expect(app.querySelector('video.player__video')).toBe(player);
    expect(app.querySelectorAll('h1')).toHaveLength(1);
    // The viewer's own locks and place are asked for at once: the drawn page was anyone's.
    await waitFor(() => expect(calls).toContain('/api/video?id=heir'));
    // The viewer's own answer replaces the drawn one in the same elements.
    await waitFor(() => expect(app.querySelector('h1')?.textContent).toBe('The Heir Returns'));
    expect(app.querySelector('video.player__video')).toBe(player);
  });

  it('reads the visitor\'s languages by their q-values, English when none is spoken here', () => {
    expect(languageOf(undefined)).toBe('en');
    expect(languageOf('ja, nl;q=0.5')).toBe('en');
    expect(languageOf('en;q=0.1, de-AT;q=0.9')).toBe('dy');
    expect(languageOf('fr-CA')).toBe('fy');
    expect(languageOf('pt;q=0, es;q=0.2')).toBe('es');
    expect(languageOf('x'.repeat(10_000))).toBe('en');
  });
});
