import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { FormField } from '../../components/FormField';
import { useT } from '../../i18n/I18nProvider';
import { showToast } from '../../lib/toast';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useLandingSecret } from '../../lib/useLandingSecret';
import { AuthLayout } from './AuthLayout';
import { useLogin } from './queries';
import { SocialLogin } from './SocialLogin';
import { useAccountForm } from './useAccountForm';
import { useProviderSignInReturn } from './useProviderSignInReturn';

// Why a provider sign-in came back without signing in (`?oauthError=`): the server's reasons, and `code`.
const SIGN_IN_FAILURES = {
  state: 'auth.oauthState',
  expired: 'auth.oauthExpired',
  denied: 'auth.oauthDenied',
  provider: 'auth.oauthProvider',
  email: 'auth.oauthEmail',
  code: 'auth.oauthCode',
} as const;

/** Where to go after signing in: a same-site path only, so a crafted link cannot send users elsewhere. */
export function safeRedirect(target: string | null, fallback = '/my'): string {
  return target && target.startsWith('/') && !target.startsWith('//') ? target : fallback;
}

export function LoginPage() {
  const t = useT();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const login = useLogin();
  const redirect = safeRedirect(params.get('redirect'));
  const signingIn = useProviderSignInReturn(useLandingSecret('oauth'), redirect);
  const failure = params.get('oauthError');
  useDocumentTitle(t('auth.login'));
  const form = useAccountForm('login', async ({ email, password }) => {
    const user = await login.mutateAsync({ email, password });
    showToast(t('auth.welcome', { email: user.email ?? email }), 'success');
    navigate(redirect, { replace: true });
  });

  if (signingIn) {
    return (
      <AuthLayout title={t('auth.loginTitle')}>
        <p className="notice" role="status">
          {t('auth.oauthSigningIn')}
        </p>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title={t('auth.loginTitle')} subtitle={t('auth.loginSubtitle')}>
      {failure !== null && (
        <p className="notice notice--error" role="alert">
          {t(Object.hasOwn(SIGN_IN_FAILURES, failure) ? SIGN_IN_FAILURES[failure as keyof typeof SIGN_IN_FAILURES] : 'auth.oauthProvider')}
        </p>
      )}
      <form className="form" noValidate onSubmit={(event) => void form.onSubmit(event)}>
        <FormField label={t('auth.email')} type="email" autoComplete="email" inputMode="email" {...form.field('email')} />
        <FormField label={t('auth.password')} type="password" autoComplete="current-password" {...form.field('password')} />
        <Link to="/retrievePassword" className="form__aside">
          {t('auth.forgot')}
        </Link>
        <button type="submit" className="button button--primary button--block" disabled={login.isPending}>
          {t('auth.login')}
        </button>
      </form>
      <SocialLogin redirect={redirect} />
      <p className="auth__switch">
        {t('auth.noAccount')} <Link to="/register">{t('auth.register')}</Link>
      </p>
    </AuthLayout>
  );
}
