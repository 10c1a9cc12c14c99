import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Outlet, ScrollRestoration, useLocation, useNavigate, useNavigation } from 'react-router-dom';
import { onApiSignal, type LockedEpisode } from '../api/client';
import { catalogQueries } from '../api/catalogQueries';
import { useCurrentUser } from '../api/userQueries';
import { useLogout } from '../features/account/queries';
import { UnlockSheet } from '../features/video/UnlockSheet';
import { useT } from '../i18n/I18nProvider';
import { showToast } from '../lib/toast';
import { usePageViews } from '../lib/usePageViews';
import { Footer } from './Footer';
import { Header } from './Header';
import { TabBar } from './TabBar';
import { Toasts } from './Toasts';

export function AppShell() {
  const t = useT();
  const navigate = useNavigate();
  const location = useLocation();
  const navigation = useNavigation();
  const queryClient = useQueryClient();
  const user = useCurrentUser().data;
  const logout = useLogout();
  const [locked, setLocked] = useState<LockedEpisode | null>(null);
  usePageViews();
  const main = useRef<HTMLElement>(null);
  const firstPath = useRef(location.pathname);

  // After a client-side page change, focus moves to the new content, as a full page load would do.
  useEffect(() => {
    if (location.pathname === firstPath.current) return;
    firstPath.current = '';
    const element = main.current;
    // A page that focused something itself (the search box) keeps it.
    if (element && !element.contains(document.activeElement)) element.focus({ preventScroll: true });
  }, [location.pathname]);

  useEffect(
    () =>
      onApiSignal((signal) => {
        if (signal.kind === 'unlock-required') setLocked(signal.locked);
        else if (!location.pathname.startsWith('/login')) {
          navigate(`/login?redirect=${encodeURIComponent(location.pathname + location.search)}`);
        }
      }),
    [navigate, location.pathname, location.search],
  );

  const lockedVideo = locked?.videoId ? queryClient.getQueryData(catalogQueries.video(locked.videoId).queryKey) : undefined;
  const lockedNumber = lockedVideo?.episodes.find((episode) => episode.id === locked?.episodeId)?.number;

  const onLogout = () =>
    logout.mutate(undefined, {
      onSettled: () => {
        showToast(t('auth.loggedOut'), 'info');
        navigate('/');
      },
    });

  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        {t('nav.skip')}
      </a>
      {navigation.state === 'loading' && <div className="route-progress" aria-hidden="true" />}
      <Header />
      <main id="main" ref={main} className="main" tabIndex={-1}>
        <Outlet />
      </main>
      <Footer onLogout={user?.kind === 'member' ? onLogout : undefined} />
      <TabBar />
      <Toasts />
      {locked && <UnlockSheet locked={locked} episodeNumber={lockedNumber} onClose={() => setLocked(null)} />}
      <ScrollRestoration />
    </div>
  );
}
