import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { FormField } from '../../components/FormField';
import { useT } from '../../i18n/I18nProvider';
import { showToast } from '../../lib/toast';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useLandingSecret } from '../../lib/useLandingSecret';
import { AuthLayout } from './AuthLayout';
import { useForgotPassword, useResetPassword } from './queries';
import { useAccountForm } from './useAccountForm';

/**
 * /retrievePassword asks for a reset link; the mailed link, /retrievePassword?reset=<token>, sets the
 * new password. boot.ts took the token out of the address before any pixel could read it: the page has
 * it from memory.
 */
export function RetrievePasswordPage() {
  const t = useT();
  const token = useLandingSecret('reset');
  useDocumentTitle(t('reset.title'));
  return (
    <AuthLayout title={t('reset.title')} subtitle={token ? t('reset.newPasswordSubtitle') : t('reset.requestSubtitle')}>
      {token ? <ResetStep token={token} /> : <RequestStep />}
      <p className="auth__switch">
        <Link to="/login">{t('auth.login')}</Link>
      </p>
    </AuthLayout>
  );
}

function RequestStep() {
  const t = useT();
  const forgot = useForgotPassword();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useAccountForm('forgot', async ({ email }) => {
    await forgot.mutateAsync(email);
    setSentTo(email);
  });
  if (sentTo) return <p className="notice notice--success" role="status">{t('reset.sent', { email: sentTo })}</p>;
  return (
    <form className="form" noValidate onSubmit={(event) => void form.onSubmit(event)}>
      <FormField label={t('auth.email')} type="email" autoComplete="email" inputMode="email" {...form.field('email')} />
      <button type="submit" className="button button--primary button--block" disabled={forgot.isPending}>
        {t('reset.send')}
      </button>
    </form>
  );
}

function ResetStep({ token }: { token: string }) {
  const t = useT();
  const navigate = useNavigate();
  const reset = useResetPassword();
  const form = useAccountForm('reset', async ({ password, confirmPassword }) => {
    await reset.mutateAsync({ token, password, confirmPassword });
    showToast(t('reset.done'), 'success');
    navigate('/login', { replace: true });
  });
  const expired = reset.error instanceof ApiError && reset.error.code !== 422;
  return (
    <form className="form" noValidate onSubmit={(event) => void form.onSubmit(event)}>
      {expired && (
        <p className="notice" role="alert">
          {t('reset.invalid')} <Link to="/retrievePassword">{t('reset.send')}</Link>
        </p>
      )}
      <FormField label={t('reset.newPassword')} type="password" autoComplete="new-password" {...form.field('password')} />
      <FormField label={t('auth.confirmPassword')} type="password" autoComplete="new-password" {...form.field('confirmPassword')} />
      <button type="submit" className="button button--primary button--block" disabled={reset.isPending}>
        {t('reset.save')}
      </button>
    </form>
  );
}
