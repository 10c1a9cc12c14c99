import { Link } from 'react-router-dom';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useLandingSecret } from '../../lib/useLandingSecret';
import { AuthLayout } from './AuthLayout';
import { useResendVerification, useVerifyEmail } from './queries';

/**
 * /verifyEmail?verify=<token>, the link mailed at registration: boot.ts took the token out of the
 * address before any analytics ran; the page has it from memory and verifies it once.
 */
export function VerifyEmailPage() {
  const t = useT();
  const token = useLandingSecret('verify');
  const verify = useVerifyEmail(token);
  const resend = useResendVerification();
  useDocumentTitle(t('verify.title'));
  const failed = token === null || verify.isError;
  return (
    <AuthLayout title={t('verify.title')}>
      {verify.isPending && !failed && <p role="status">{t('verify.checking')}</p>}
      {verify.isSuccess && (
        <p className="notice notice--success" role="status">
          {t('verify.done', { email: verify.data.email ?? '' })}
        </p>
      )}
      {failed && (
        <>
          <p className="notice" role="alert">
            {t('verify.invalid')}
          </p>
          {resend.isSuccess ? (
            <p className="notice notice--success" role="status">{t('verify.sent')}</p>
          ) : (
            <button type="button" className="button button--primary button--block" disabled={resend.isPending} onClick={() => resend.mutate()}>
              {t('verify.resend')}
            </button>
          )}
        </>
      )}
      <p className="auth__switch">
        <Link to="/my">{t('verify.toAccount')}</Link>
      </p>
    </AuthLayout>
  );
}
