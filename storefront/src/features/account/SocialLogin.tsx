import { useT } from '../../i18n/I18nProvider';

// A provider appears only when the deployment configures its sign-in address at build time.
const PROVIDERS = [
  { name: 'Google', url: import.meta.env.VITE_GOOGLE_LOGIN_URL as string | undefined, color: '#fff', text: '#1f1f1f' },
  { name: 'Facebook', url: import.meta.env.VITE_FACEBOOK_LOGIN_URL as string | undefined, color: '#1877f2', text: '#fff' },
].filter((provider) => Boolean(provider.url));

export function SocialLogin() {
  const t = useT();
  if (PROVIDERS.length === 0) return null;
  return (
    <div className="social">
      <p className="social__or">
        <span>{t('auth.or')}</span>
      </p>
      {PROVIDERS.map((provider) => (
        <a
          key={provider.name}
          href={provider.url}
          className="button button--block"
          style={{ background: provider.color, color: provider.text }}
        >
          {t('auth.continueWith', { provider: provider.name })}
        </a>
      ))}
    </div>
  );
}
