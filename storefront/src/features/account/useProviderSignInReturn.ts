import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { trackEvent } from '../../api/analytics';
import type { User } from '../../api/types';
import { userQueries } from '../../api/userQueries';
import { useT } from '../../i18n/I18nProvider';
import { showToast } from '../../lib/toast';
import { useSignInExchange } from './queries';

/**
 * Finishes a provider sign-in that came back to /login with `?oauth=<one-time code>` (`code`: boot.ts
 * took it out of the address, lib/sensitiveUrl.ts): exchanges the code once (the browser sends the cookie the start set) and goes on to `redirect`; a code that cannot
 * be exchanged (spent, expired, or not started in this browser) comes back as `?oauthError=code`.
 * Answers whether it is at work.
 */
export function useProviderSignInReturn(code: string | null, redirect: string): boolean {
  const t = useT();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const exchange = useSignInExchange();
  const { mutateAsync } = exchange;
  // One exchange per code, even when effects run twice (React's strict mode): the code works once.
  const exchanged = useRef<string | null>(null);

  useEffect(() => {
    if (!code || exchanged.current === code) return;
    exchanged.current = code;
    const failed = () => navigate(`/login?${new URLSearchParams({ oauthError: 'code', redirect })}`, { replace: true });
    const before = queryClient.getQueryData<User>(userQueries.current().queryKey);
    mutateAsync(code).then((user) => {
      // The guest itself became the member: a sign-up, as the registration page reports one.
      if (before?.kind === 'guest' && before.id === user.id) trackEvent('register');
      showToast(t('auth.welcome', { email: user.email ?? '' }), 'success');
      navigate(redirect, { replace: true });
    }, failed);
  }, [code, redirect, mutateAsync, navigate, queryClient, t]);

  return Boolean(code) || exchange.isPending;
}
