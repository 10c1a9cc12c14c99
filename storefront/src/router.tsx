import { createElement, lazy, useLayoutEffect, type ComponentType } from 'react';
import { matchPath, Route, Routes, useLocation } from 'react-router-dom';
import { AppShell } from './components/AppShell';
import { PageErrorBoundary } from './components/PageErrorBoundary';
import { keepAttribution } from './lib/attribution';

type PageModule = Record<string, unknown>;

interface PageRoute {
  path: string;
  /** The page's module, loaded once. */
  load: () => Promise<ComponentType>;
  Component: ComponentType;
}

/**
 * A route whose page module loads on demand; `name` is the component the module exports. Once the
 * module is here (main.tsx waits for the first page's), the page renders at once: a first render
 * that suspended would leave the server's markup of the page (entry-server.tsx) for another pass.
 */
function page(path: string, importPage: () => Promise<PageModule>, name: string): PageRoute {
  let loaded: ComponentType | undefined;
  let loading: Promise<ComponentType> | undefined;
  const load = () => {
    loading ??= importPage().then(
      (module) => (loaded = module[name] as ComponentType),
      (error: unknown) => {
        // A chunk that failed (a deploy replaced it, the network dropped) is asked for again next time.
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  const Lazy = lazy(async () => ({ default: await load() }));
  return { path, load, Component: () => (loaded ? createElement(loaded) : createElement(Lazy)) };
}

// Declarative routes (<Routes>), not a data router: createBrowserRouter alone weighs 16 KB gzipped
// more, a sixth of the first load's budget (storefront/bench/bundle-size.mjs). The shell wraps every page.
export const routes: { Component: ComponentType; children: PageRoute[] }[] = [
  {
    Component: AppShell,
    children: [
      page('/', () => import('./features/home/HomePage'), 'HomePage'),
      page('/browse/:id', () => import('./features/home/BrowsePage'), 'BrowsePage'),
      page('/more/:id', () => import('./features/home/MorePage'), 'MorePage'),
      page('/videos/:id', () => import('./features/video/VideoPage'), 'VideoPage'),
      page('/feed', () => import('./features/video/FeedPage'), 'FeedPage'),
      page('/individual', () => import('./features/account/IndividualPage'), 'IndividualPage'),
      page('/my', () => import('./features/account/MyPage'), 'MyPage'),
      page('/login', () => import('./features/account/LoginPage'), 'LoginPage'),
      page('/register', () => import('./features/account/RegisterPage'), 'RegisterPage'),
      page('/retrievePassword', () => import('./features/account/RetrievePasswordPage'), 'RetrievePasswordPage'),
      page('/favorites', () => import('./features/lists/FavoritesPage'), 'FavoritesPage'),
      page('/historys', () => import('./features/lists/HistoryPage'), 'HistoryPage'),
      page('/unlocked', () => import('./features/lists/UnlockedPage'), 'UnlockedPage'),
      page('/search', () => import('./features/search/SearchPage'), 'SearchPage'),
      page('/searchDetail/:id', () => import('./features/search/SearchDetailPage'), 'SearchDetailPage'),
      page('/shopping', () => import('./features/shop/ShoppingPage'), 'ShoppingPage'),
      page('/order/easy', () => import('./features/shop/OrderEasyPage'), 'OrderEasyPage'),
      page('/order/result', () => import('./features/shop/OrderResultPage'), 'OrderResultPage'),
      page('/privacyPolicy', () => import('./features/pages/PrivacyPolicyPage'), 'PrivacyPolicyPage'),
      page('/refundPolicy', () => import('./features/pages/RefundPolicyPage'), 'RefundPolicyPage'),
      page('/serviceAgreement', () => import('./features/pages/ServiceAgreementPage'), 'ServiceAgreementPage'),
      page('/contentPolicy', () => import('./features/pages/ContentPolicyPage'), 'ContentPolicyPage'),
      page('/commonQuestions', () => import('./features/pages/CommonQuestionsPage'), 'CommonQuestionsPage'),
      page('/contactUs', () => import('./features/pages/ContactUsPage'), 'ContactUsPage'),
      page('*', () => import('./features/pages/NotFoundPage'), 'NotFoundPage'),
    ],
  },
];

/** Keeps token, fbclid and ttclid of every URL navigated to (spec section 2), before its page makes a call. */
export function KeepAttribution() {
  const { search, key } = useLocation();
  // A layout effect runs before any page's effects, where the query hooks send their calls.
  useLayoutEffect(() => keepAttribution(search), [search, key]);
  return null;
}

export function AppRoutes() {
  return (
    <PageErrorBoundary>
      <KeepAttribution />
      <Routes>
        {routes.map(({ Component: Shell, children }, index) => (
          <Route key={index} element={<Shell />}>
            {children.map(({ path, Component }) => (
              <Route key={path} path={path} element={<Component />} />
            ))}
          </Route>
        ))}
      </Routes>
    </PageErrorBoundary>
  );
}

/** Starts downloading the page a URL shows, before anything renders; settles when it is here (or failed). */
export function preloadPage(pathname: string): Promise<boolean> {
  const match = routes.flatMap((route) => route.children).find((route) => matchPath(route.path, pathname));
  if (!match) return Promise.resolve(true);
  // A page that cannot load shows its error once rendered (PageErrorBoundary), or loads on a second
  // try as it renders: false, so that main.tsx does not hydrate a page that would render late.
  return match.load().then(
    () => true,
    () => false,
  );
}
