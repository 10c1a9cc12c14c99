import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { stripLandingSecrets } from '../../lib/sensitiveUrl';
import { renderWithApp, type Envelope } from '../../testing/renderWithApp';
import { RetrievePasswordPage } from './RetrievePasswordPage';

const TOKEN = 'Zq3cV8hK2mN5pR7tW9yB1dF4gJ6kL0xA_sE-uI3oP8q';

/** Opens the mailed link as the browser does: the address, then boot.ts, then the app in the browser's own history. */
function openResetLink(answer: Envelope) {
  window.history.replaceState(null, '', `/retrievePassword?reset=${TOKEN}`);
  stripLandingSecrets();
  const { api } = renderWithApp(
    [
      { path: '/retrievePassword', element: <RetrievePasswordPage /> },
      { path: '/login', element: <p>login page</p> },
    ],
    { browser: true, answers: { '/api/user/password/reset': answer } },
  );
  return api!.calls;
}

const posted = (calls: ReturnType<typeof openResetLink>) => calls.filter((call) => call.method === 'POST').map(({ path, body }) => ({ path, body }));

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
    expect(posted(calls)).toEqual([{ path: '/api/user/password/reset', body: { token: TOKEN, password: 'correct-horse-9', confirmPassword: 'correct-horse-9' } }]);
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
