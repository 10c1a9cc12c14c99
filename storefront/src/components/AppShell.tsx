import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState, type MouseEvent } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router-dom';
import { onApiSignal, type LockedEpisode } from '../api/client';
import { catalogQueries } from '../api/catalogQueries';
import { useCurrentUser } from '../api/userQueries';
import { useLogout } from '../features/account/queries';
import { useT } from '../i18n/I18nProvider';
import { PageCommitted } from '../lib/hydration';
import { showToast } from '../lib/toast';
import { usePageViews } from '../lib/usePageViews';
import { useScrollRestoration } from '../lib/useScrollRestoration';
import { AppSplash } from './AppSplash';
import { Footer } from './Footer';
import { Header } from './Header';
import { PageErrorBoundary } from './PageErrorBoundary';
import { TabBar } from './TabBar';
import { Toasts } from './Toasts';

// Only a locked episode opens it: not part of the first load.
const UnlockSheet = lazy(() => import('../features/video/UnlockSheet').then((module) => ({ default: module.UnlockSheet })));

export function AppShell() {
  const t = useT();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const user = useCurrentUser().data;
  const logout = useLogout();
  const [locked, setLocked] = useState<LockedEpisode | null>(null);
  usePageViews();
  useScrollRestoration();
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

  // Links marked data-app-link (VideoTile) are plain links: a plain click on one moves within the app,
  // as a React Router Link would; a click with a modifier key opens it the browser's way.
  const followAppLink = (event: MouseEvent<HTMLDivElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element | null)?.closest?.('a[data-app-link]');
    const href = link?.getAttribute('href');
    if (!href) return;
    event.preventDefault();
    navigate(href);
  };

  const onLogout = () =>
    logout.mutate(undefined, {
      onSettled: () => {
        showToast(t('auth.loggedOut'), 'info');
        navigate('/');
      },
    });

  return (
    <div className="shell" onClick={followAppLink}>
      <a href="#main" className="skip-link">
        {t('nav.skip')}
      </a>
      <Header />
      <main id="main" ref={main} className="main" tabIndex={-1}>
        {/* A new page's chunk loads while the last page stays (router transitions); only a first load shows the splash. */}
        <PageErrorBoundary resetKey={location.pathname}>
          <Suspense fallback={<AppSplash />}>
            <Outlet />
            <PageCommitted />
          </Suspense>
        </PageErrorBoundary>
      </main>
      <Footer onLogout={user?.kind === 'member' ? onLogout : undefined} />
      <TabBar />
      <Toasts />
      {locked && (
        <Suspense fallback={null}>
          <UnlockSheet locked={locked} episodeNumber={lockedNumber} onClose={() => setLocked(null)} />
        </Suspense>
      )}
    </div>
  );
}
