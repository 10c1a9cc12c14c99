import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { stripLandingSecrets } from '../../lib/sensitiveUrl';
import { ok, renderWithApp } from '../../testing/renderWithApp';
import { VerifyEmailPage } from './VerifyEmailPage';

const TOKEN = 'Vq3cV8hK2mN5pR7tW9yB1dF4gJ6kL0xA_sE-uI3oP8q';

/** Opens the mailed link as the browser does: the address, then boot.ts, then the page. */
function openVerifyLink(answer: { code: number; message: string; data: unknown }) {
  window.history.replaceState(null, '', `/verifyEmail?verify=${TOKEN}`);
  stripLandingSecrets();
  // Every answer signs the viewer in, as a verified link's does.
  const headers = { 'x-user-token': 'A'.repeat(43) };
  const { api } = renderWithApp([{ path: '/verifyEmail', element: <VerifyEmailPage /> }], {
    browser: true,
    answers: { '/api/user/email/verify': { ...answer, headers } },
    fallback: { ...ok(null), headers },
  });
  return api!.calls;
}

describe('the email verification link', () => {
  it('takes the token out of the address bar, verifies it once and says so', async () => {
    const calls = openVerifyLink({ code: 200, message: 'ok', data: { id: 'u1', kind: 'member', email: 'ada@example.com', emailVerified: true } });
    expect(window.location.href).toBe('http://localhost:3000/verifyEmail');
    await screen.findByText('ada@example.com is confirmed. Thank you!');
    expect(calls.filter((call) => call.path === '/api/user/email/verify').map(({ method, path, body }) => ({ method, path, body }))).toEqual([{ method: 'POST', path: '/api/user/email/verify', body: { token: TOKEN } }]);
  });

  it('an expired link says so and offers a new one', async () => {
    openVerifyLink({ code: 422, message: 'This verification link is invalid or has expired', data: { fields: { token: 'x' } } });
    await screen.findByText('This confirmation link is invalid or has expired.');
    expect(screen.getByRole('button', { name: 'Send me a new link' })).toBeTruthy();
  });
});
