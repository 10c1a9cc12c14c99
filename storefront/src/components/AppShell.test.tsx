import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { useEffect } from 'react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../api/client';
import { I18nProvider } from '../i18n/I18nProvider';
import { keepUserToken } from '../lib/attribution';
import { AppShell } from './AppShell';

type Answers = Record<string, { code: number; message?: string; data?: unknown }>;

function serve(answers: Answers) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const path = new URL(url, 'http://localhost').pathname;
      const answer = answers[path] ?? { code: 200, data: path === '/api/user' ? { id: 'u1', kind: 'guest', email: null, coins: 5, vip: null } : [] };
      return new Response(JSON.stringify({ message: 'ok', ...answer }), { headers: { 'content-type': 'application/json' } });
    }),
  );
}

/** A page that makes one call when it opens, the way the real pages do through their query hooks. */
function Calling({ path }: { path: string }) {
  useEffect(() => {
    api.get(path).catch(() => undefined);
  }, [path]);
  return <p>a page</p>;
}

function LoginStandIn() {
  const location = useLocation();
  return <p>login {location.search}</p>;
}

function renderShell(path: string) {
  const router = createMemoryRouter(
    [
      {
        Component: AppShell,
        children: [
          { path: '/', element: <Calling path={path} /> },
          { path: '/login', Component: LoginStandIn },
        ],
      },
    ],
    { initialEntries: ['/'] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nProvider>
        <RouterProvider router={router} />
      </I18nProvider>
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  localStorage.clear();
  keepUserToken('user-token-1');
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the app shell', () => {
  it('sends the user to /login when a call answers 401, keeping where they were', async () => {
    serve({ '/api/user/favorite': { code: 401, message: 'Please log in' } });
    renderShell('/api/user/favorite');
    expect(await screen.findByText('login ?redirect=%2F')).toBeTruthy();
  });

  it('opens the unlock sheet when a call answers 402', async () => {
    serve({ '/api/video/episode': { code: 402, message: 'Locked', data: { episodeId: 'e7', videoId: 'v1', priceCoins: 30, balance: 5 } } });
    renderShell('/api/video/episode');
    expect(await screen.findByRole('heading', { name: 'Unlock this episode' })).toBeTruthy();
    expect(screen.getByText('30 coins')).toBeTruthy();
    expect(screen.getByText('Your balance: 5 coins')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Subscribe to unlock all' }).getAttribute('href')).toBe('/shopping#vip');
  });

  it('has the footer links of the spec', async () => {
    serve({});
    renderShell('/api/tag');
    await screen.findByText('a page');
    const footer = screen.getByRole('navigation', { name: 'Site links' });
    const links = [...footer.querySelectorAll('a')].map((link) => [link.textContent, link.getAttribute('href')]);
    expect(links).toEqual([
      ['Terms of Use', '/serviceAgreement'],
      ['Privacy Policy', '/privacyPolicy'],
      ['Content Policy', '/contentPolicy'],
      ['Refund Policy', '/refundPolicy'],
      ['Contact Us', '/contactUs'],
      ['FAQ', '/commonQuestions'],
    ]);
  });
});
