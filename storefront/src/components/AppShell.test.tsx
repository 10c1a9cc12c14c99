import { screen } from '@testing-library/react';
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it } from 'vitest';
import { api } from '../api/client';
import { keepUserToken } from '../lib/attribution';
import { ok, renderWithApp, type Answers } from '../testing/renderWithApp';
import { AppShell } from './AppShell';

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

/** The shell around a page that calls `path` when it opens; the API answers `answers`, a guest for /api/user and an empty list for anything else. */
function renderShell(path: string, answers: Answers) {
  renderWithApp(
    [
      {
        Component: AppShell,
        children: [
          { path: '/', element: <Calling path={path} /> },
          { path: '/login', Component: LoginStandIn },
        ],
      },
    ],
    { answers: { '/api/user': ok({ id: 'u1', kind: 'guest', email: null, coins: 5, vip: null }), ...answers }, fallback: ok([]) },
  );
}

beforeEach(() => {
  localStorage.clear();
  keepUserToken('user-token-1');
});

describe('the app shell', () => {
  it('sends the user to /login when a call answers 401, keeping where they were', async () => {
    renderShell('/api/user/favorite', { '/api/user/favorite': { code: 401, message: 'Please log in' } });
    expect(await screen.findByText('login ?redirect=%2F')).toBeTruthy();
  });

  it('opens the unlock sheet when a call answers 402', async () => {
    renderShell('/api/video/episode', { '/api/video/episode': { code: 402, message: 'Locked', data: { episodeId: 'e7', videoId: 'v1', priceCoins: 30, balance: 5 } } });
    expect(await screen.findByRole('heading', { name: 'Unlock this episode' })).toBeTruthy();
    expect(screen.getByText('30 coins')).toBeTruthy();
    expect(screen.getByText('Your balance: 5 coins')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Subscribe to unlock all' }).getAttribute('href')).toBe('/shopping#vip');
  });

  it('has the footer links of the spec', async () => {
    renderShell('/api/tag', {});
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
