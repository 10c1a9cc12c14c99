import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { BrowserRouter, Route, Routes } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../i18n/I18nProvider';
import { stripLandingSecrets } from '../../lib/sensitiveUrl';
import { RetrievePasswordPage } from './RetrievePasswordPage';

const TOKEN = 'Zq3cV8hK2mN5pR7tW9yB1dF4gJ6kL0xA_sE-uI3oP8q';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

/** Opens the mailed link as the browser does: the address, then boot.ts, then the app in the browser's own history. */
function openResetLink(answer: { code: number; message: string }) {
  const calls: Array<{ path: string; body: Record<string, unknown> }> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = new URL(url, 'http://localhost').pathname;
      if (init.method === 'POST') calls.push({ path, body: JSON.parse(init.body as string) as Record<string, unknown> });
      return new Response(JSON.stringify(path === '/api/user/password/reset' ? { ...answer, data: null } : { code: 200, message: 'ok', data: null }), {
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  window.history.replaceState(null, '', `/retrievePassword?reset=${TOKEN}`);
  stripLandingSecrets();
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nProvider>
        <BrowserRouter>
          <Routes>
            <Route path="/retrievePassword" element={<RetrievePasswordPage />} />
            <Route path="/login" element={<p>login page</p>} />
          </Routes>
        </BrowserRouter>
      </I18nProvider>
    </QueryClientProvider>,
  );
  return calls;
}

async function chooseNewPassword() {
  fireEvent.change(await screen.findByLabelText('New password'), { target: { value: 'correct-horse-9' } });
  fireEvent.change(screen.getByLabelText('Repeat password'), { target: { value: 'correct-horse-9' } });
  fireEvent.click(screen.getByRole('button', { name: 'Save new password' }));
}

describe('the password reset link', () => {
  it('leaves no token in the address bar, and the page still resets the password with it', async () => {
    const calls = openResetLink({ code: 200, message: 'ok' });
    expect(window.location.href).toBe('http://localhost:3000/retrievePassword');
    await chooseNewPassword();
    await screen.findByText('login page');
    expect(calls).toEqual([{ path: '/api/user/password/reset', body: { token: TOKEN, password: 'correct-horse-9', confirmPassword: 'correct-horse-9' } }]);
    expect(window.location.href).not.toContain(TOKEN);
  });

  it('forgets the token once the viewer asks for a new link from an expired one', async () => {
    openResetLink({ code: 400, message: 'This reset link is invalid or has expired' });
    await chooseNewPassword();
    fireEvent.click(await screen.findByRole('link', { name: 'Send reset link' }));
    await screen.findByText('Enter your account email and we will send you a link to choose a new password.');
    expect(screen.queryByLabelText('New password')).toBeNull();
  });
});
