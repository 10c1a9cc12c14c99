import { Link, useNavigate } from 'react-router-dom';
import { trackEvent } from '../../api/analytics';
import { FormField } from '../../components/FormField';
import { useT } from '../../i18n/I18nProvider';
import { showToast } from '../../lib/toast';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { AuthLayout } from './AuthLayout';
import { useRegister } from './queries';
import { SocialLogin } from './SocialLogin';
import { useAccountForm } from './useAccountForm';

export function RegisterPage() {
  const t = useT();
  const navigate = useNavigate();
  const register = useRegister();
  useDocumentTitle(t('auth.register'));
  const form = useAccountForm('register', async (values) => {
    const user = await register.mutateAsync(values);
    trackEvent('register');
    showToast(t('auth.welcome', { email: user.email ?? values.email }), 'success');
    navigate('/my', { replace: true });
  });

  return (
    <AuthLayout title={t('auth.registerTitle')} subtitle={t('auth.registerSubtitle')}>
      <form className="form" noValidate onSubmit={(event) => void form.onSubmit(event)}>
        <FormField label={t('auth.email')} type="email" autoComplete="email" inputMode="email" {...form.field('email')} />
        <FormField label={t('auth.password')} type="password" autoComplete="new-password" {...form.field('password')} />
        <FormField label={t('auth.confirmPassword')} type="password" autoComplete="new-password" {...form.field('confirmPassword')} />
        <button type="submit" className="button button--primary button--block" disabled={register.isPending}>
          {t('auth.register')}
        </button>
      </form>
      <SocialLogin redirect="/my" />
      <p className="auth__switch">
        {t('auth.haveAccount')} <Link to="/login">{t('auth.login')}</Link>
      </p>
    </AuthLayout>
  );
}
