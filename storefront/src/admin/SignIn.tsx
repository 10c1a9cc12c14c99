import { useState, type FormEvent } from 'react';
import { AdminError, signIn, storeCredential, type Credential } from './api';
import { ErrorState } from './ErrorState';
import { useConsoleI18n } from './i18n';

/**
 * The console's sign-in: a member's email and password (POST /api/user/login), the session kept
 * under the console's own key; or, for automation, the admin token.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (credential: Credential) => void }) {
  const { t } = useConsoleI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const withPassword = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const credential = await signIn(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
      storeCredential(credential);
      onSignedIn(credential);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const withToken = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = String(new FormData(event.currentTarget).get('token') ?? '').trim();
    if (!token) return;
    const credential: Credential = { kind: 'adminToken', token };
    storeCredential(credential);
    onSignedIn(credential);
  };

  const fields = error instanceof AdminError ? error.fields : {};
  return (
    <main id="console-main" className="console-signin">
      <h1>{t('signIn.title')}</h1>
      <p>{t('signIn.intro')}</p>
      <form onSubmit={withPassword} className="console-form" noValidate>
        <label>
          {t('signIn.email')}
          <input name="email" type="email" autoComplete="username" required aria-invalid={Boolean(fields.email)} />
        </label>
        <label>
          {t('signIn.password')}
          <input name="password" type="password" autoComplete="current-password" required aria-invalid={Boolean(fields.password)} />
        </label>
        <button type="submit" className="console-button console-button--primary" disabled={busy}>
          {busy ? t('signIn.busy') : t('signIn.submit')}
        </button>
      </form>
      {error !== null && <ErrorState error={error} />}
      <details className="console-token">
        <summary>{t('signIn.tokenTitle')}</summary>
        <form onSubmit={withToken} className="console-form">
          <label>
            {t('signIn.token')}
            <input name="token" type="password" autoComplete="off" />
          </label>
          <button type="submit" className="console-button">
            {t('signIn.tokenSubmit')}
          </button>
        </form>
      </details>
    </main>
  );
}
