import { useState } from 'react';
import { signInStartUrl, type SignInProvider } from '../../api/user';
import { useT } from '../../i18n/I18nProvider';
import { useSignInProviders } from './queries';

const LOOKS: Record<SignInProvider, { name: string; background: string; color: string }> = {
  google: { name: 'Google', background: '#fff', color: '#1f1f1f' },
  facebook: { name: 'Facebook', background: '#1877f2', color: '#fff' },
};

/**
 * "Continue with Google / Facebook" for each provider the site is configured with (GET
 * /api/user/oauth/providers): none otherwise. `redirect` is where the viewer lands once signed in.
 */
export function SocialLogin({ redirect }: { redirect: string }) {
  const t = useT();
  const providers = useSignInProviders();
  const [leaving, setLeaving] = useState<SignInProvider | null>(null);
  const offered = (providers.data ?? []).filter((provider) => provider in LOOKS);
  if (offered.length === 0) return null;

  const signIn = (provider: SignInProvider) => {
    setLeaving(provider);
    window.location.assign(signInStartUrl(provider, redirect));
  };

  return (
    <div className="social">
      <p className="social__or">
        <span>{t('auth.or')}</span>
      </p>
      {offered.map((provider) => (
        <button
          key={provider}
          type="button"
          className="button button--block"
          style={{ background: LOOKS[provider].background, color: LOOKS[provider].color }}
          disabled={leaving !== null}
          onClick={() => signIn(provider)}
        >
          {t('auth.continueWith', { provider: LOOKS[provider].name })}
        </button>
      ))}
    </div>
  );
}
