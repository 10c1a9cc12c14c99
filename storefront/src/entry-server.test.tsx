import { QueryClient } from '@tanstack/react-query';
import { act, waitFor } from '@testing-library/react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LoaderData } from './api/loaderData';
import { stubPlayback } from './features/video/playerTesting';
import { markupOf } from './ssr/testing';
import { card, heirReturns, ok, page, serveApi, type ServedApi } from './testing/renderWithApp';

const loaderData: LoaderData = {
  homepage: {
    carousel: { title: 'Featured Videos', items: [card('heir', 'The Heir Returns'), card('bride', 'The Runaway Bride')] },
    sections: [{ id: 'romance', title: 'Romance', items: [card('bride', 'The Runaway Bride'), card('ceo', 'My CEO Husband')] }],
  },
  rankings: { top: page([card('ceo', 'My CEO Husband')]), trending: page([]), new: page([card('heir', 'The Heir Returns')]) },
};

/** A series as a visitor who has unlocked nothing sees it (the series page's loader data, and the viewer's own answer here). */
const video = heirReturns(2);

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

let api: ServedApi;
/** The calls the page made, as their addresses. */
const calls = () => api.calls.map(({ path, query }) => (query.size ? `${path}?${query}` : path));
// Each test a first visit: the app's modules anew (what a page remembers within a visit starts over).
const noteLanding = async () => (await import('./lib/attribution')).noteLanding();
beforeEach(() => {
  vi.resetModules();
  localStorage.clear();
  api = serveApi(
    {
      '/api/user': ok({ id: 'u1', kind: 'guest', email: null, coins: 5, vip: null }),
      '/api/homepage/query': ok(page([card('heir', 'The Heir Returns')])),
      '/api/video': ok(video),
      '/api/video/episode': ok(episode),
      '/api/homepage': ok(loaderData.homepage),
    },
    { fallback: ok([]) },
  );
});

// Each hydrated app unmounted: React's work still scheduled for it would otherwise run after the
// test, or after jsdom is gone (a "window is not defined" thrown into the next file's run).
const roots: Root[] = [];
afterEach(async () => {
  await act(async () => roots.splice(0).forEach((root) => root.unmount()));
  document.body.innerHTML = '';
});

/** The server's markup of a page for a visitor whose browser asks for `acceptLanguage`. */
async function serverRendered(path: string, acceptLanguage: string, data: LoaderData = loaderData) {
  const { renderPage } = await import('./entry-server');
  const rendered = await renderPage(path, acceptLanguage, data);
  return { html: await markupOf(rendered), htmlLang: rendered.htmlLang };
}

/** The browser's side, as main.tsx does it: the page's loader data in the cache, then React hydrates the server's markup, recovering from nothing. */
async function hydrate(app: HTMLElement, path: string, data: LoaderData = loaderData) {
  const [{ fillQueries }, { loadLanguage }, { App }, { AppRoutes }] = await Promise.all([import('./api/loaderData'), import('./i18n/languages'), import('./App'), import('./router')]);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 30_000 } } });
  fillQueries(queryClient, data);
  const initial = await loadLanguage('en');
  const recovered: unknown[] = [];
  await act(async () => {
    roots.push(hydrateRoot(
      app,
      <App queryClient={queryClient} initial={initial}>
        <MemoryRouter initialEntries={[path]}>
          <AppRoutes />
        </MemoryRouter>
      </App>,
      { onRecoverableError: (error) => recovered.push(error) },
    ));
  });
  expect(recovered).toEqual([]);
}

describe('the home page rendered on the server', () => {
  // The series page's player: jsdom plays nothing.
  stubPlayback();

  it('holds the carousel and the rows of the first screen, in the language asked for', async () => {
    const english = await serverRendered('/', 'en-US,en;q=0.9');
    expect(english.htmlLang).toBe('en');
    document.body.innerHTML = `<div id="app">${english.html}</div>`;
    const app = document.getElementById('app')!;
    expect(app.querySelector('.carousel__backdrop')?.getAttribute('style')).toContain('/media/public/covers/heir.jpg');
    expect([...app.querySelectorAll('.row .section-title')].map((title) => title.textContent)).toEqual(['Top this week']);
    // Nothing of one viewer's own: no "continue watching", and the header as for a visitor not signed in.
    expect(app.textContent).not.toContain('Continue watching');
    expect(app.querySelector('.header__account')?.textContent).toBe('Sign in');

    const spanish = await serverRendered('/', 'fr;q=0.4, es-MX;q=0.8');
    expect(spanish.htmlLang).toBe('es');
    expect(spanish.html).toContain('Inicio');
  });

  it('sends a large page whole, in line: no script, no boundary to fill in later (the site allows no inline script)', async () => {
    const many = Array.from({ length: 60 }, (_, index) => card(`series-${index}`, `A series with a rather long title, number ${index}`));
    const large: LoaderData = { ...loaderData, rankings: { top: page(many), trending: page(many), new: page(many) } };
    const { html } = await serverRendered('/', 'en', large);
    expect(html.length).toBeGreaterThan(20_000);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<template');
    expect(html).not.toContain('<!--$?-->');
  });

  it('is hydrated by React in the browser, its elements kept', async () => {
    const rendered = await serverRendered('/', 'en');
    document.body.innerHTML = `<div id="app" data-server-rendered>${rendered.html}</div>`;
    const app = document.getElementById('app')!;
    const backdrop = app.querySelector('.carousel__backdrop');
    const poster = app.querySelector('.carousel__poster img');
    const header = app.querySelector('header');
    expect(backdrop && poster && header).toBeTruthy();

    await hydrate(app, '/');
    // The same elements, not copies: the largest picture keeps its first paint.
    expect(app.querySelector('.carousel__backdrop')).toBe(backdrop);
    expect(app.querySelector('.carousel__poster img')).toBe(poster);
    expect(app.querySelector('header')).toBe(header);
    expect(app.querySelectorAll('.shell')).toHaveLength(1);
    expect(app.querySelectorAll('.carousel')).toHaveLength(1);
    // The page's data came with it: only the viewer's own calls go out.
    expect(calls().filter((call) => call.startsWith('/api/homepage'))).toEqual([]);
    // The rows below the first screen follow, one task each.
    await waitFor(() => expect([...app.querySelectorAll('.row .section-title')].map((title) => title.textContent)).toEqual(['Top this week', 'New releases', 'Romance']));
    // And it is live: a tab switch renders the browse panel.
    app.querySelector<HTMLButtonElement>('[data-tab="browse"]')!.click();
    await waitFor(() => expect(app.querySelector('[data-tab="browse"]')?.getAttribute('aria-selected')).toBe('true'));
  });

  it('keeps a new visitor\'s page as the server rendered it, even once their first call has made them a guest', async () => {
    await noteLanding();
    // The current-user call answered before the page's first render: a guest, with no history yet.
    localStorage.setItem('cliffhanger.userToken', 'new-guest-token');
    const rendered = await serverRendered('/', 'en');
    document.body.innerHTML = `<div id="app" data-server-rendered>${rendered.html}</div>`;
    const app = document.getElementById('app')!;
    const rows = [...app.querySelectorAll('.row')];
    const pictures = [...app.querySelectorAll('.row img')];
    expect(pictures.length).toBeGreaterThan(0);
    await hydrate(app, '/');
    // The server's rows and pictures are kept (the rows below the first screen follow them).
    expect([...app.querySelectorAll('.row')].slice(0, rows.length)).toEqual(rows);
    expect([...app.querySelectorAll('.row img')].slice(0, pictures.length)).toEqual(pictures);
    expect(calls().some((call) => call.includes('sectionId=continue'))).toBe(false);
  });

  it('keeps a returning viewer\'s place for "continue watching" until it answers', async () => {
    localStorage.setItem('cliffhanger.userToken', 'returning-token');
    await noteLanding();
    const rendered = await serverRendered('/', 'en');
    document.body.innerHTML = `<div id="app" data-server-rendered>${rendered.html}</div>`;
    const app = document.getElementById('app')!;
    const backdrop = app.querySelector('.carousel__backdrop');
    await hydrate(app, '/');
    expect(app.querySelector('.carousel__backdrop')).toBe(backdrop);
    await waitFor(() => expect(app.querySelector('#section-continue')?.textContent).toBe('Continue watching'));
    expect(calls()).toContain('/api/homepage/query?sectionId=continue&page=1&size=12');
  });

  it('renders a series page from the series as a new visitor sees it, the player on its cover, and React hydrates it', async () => {
    const rendered = await serverRendered('/videos/heir', 'en', { video });
    document.body.innerHTML = `<div id="app" data-server-rendered>${rendered.html}</div>`;
    const app = document.getElementById('app')!;
    const player = app.querySelector('video.player__video');
    expect(player?.getAttribute('poster')).toBe('/media/public/covers/heir.jpg');
    expect(app.querySelector('h1')?.textContent).toBe('The Heir Returns');
    expect(app.querySelector('[data-testid="episode-2"]')?.getAttribute('aria-label')).toContain('Locked');

    await hydrate(app, '/videos/heir', { video });
    expect(app.querySelector('video.player__video')).toBe(player);
    expect(app.querySelectorAll('h1')).toHaveLength(1);
    // The viewer's own locks and place are asked for at once: the server's page was anyone's.
    await waitFor(() => expect(calls()).toContain('/api/video?id=heir'));
    // The viewer's own answer replaces the server's in the same elements.
    await waitFor(() => expect(app.querySelector('h1')?.textContent).toBe('The Heir Returns'));
    expect(app.querySelector('video.player__video')).toBe(player);
  });
});
