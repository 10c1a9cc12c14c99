import { createElement, lazy, useLayoutEffect, type ComponentType } from 'react';
import { matchPath, Route, Routes, useLocation } from 'react-router-dom';
import { AppShell } from './components/AppShell';
import { PageErrorBoundary } from './components/PageErrorBoundary';
import { keepAttribution } from './lib/attribution';
import { SERVER_RENDERED_PAGES, type PageModuleName } from './ssr/contract';

type PageModule = Record<string, unknown>;

interface PageRoute {
  path: string;
  /** The page's module, loaded once. */
  load: () => Promise<ComponentType>;
  Component: ComponentType;
}

// Every page module, each its own chunk, loaded on demand; keyed by file as ssr/contract.ts names them.
const pageModules = import.meta.glob<PageModule>('./features/*/*Page.tsx');

/**
 * A route whose page module (`module`, exporting a component of the file's name) loads on demand.
 * Once the module is here (main.tsx and entry-server.tsx wait for the first page's), the page renders
 * at once; before, it suspends under `lazy` until its chunk arrives, and hydration waits for it there
 * without breaking.
 */
function page(path: string, module: PageModuleName): PageRoute {
  const importPage = pageModules[`./features/${module}.tsx`];
  if (!importPage) throw new Error(`no page module ${module}`);
  const name = module.slice(module.indexOf('/') + 1);
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
      page('/', SERVER_RENDERED_PAGES.home.module),
      page('/browse/:id', 'home/BrowsePage'),
      page('/more/:id', 'home/MorePage'),
      page('/videos/:id', SERVER_RENDERED_PAGES.series.module),
      page('/feed', 'video/FeedPage'),
      page('/individual', 'account/IndividualPage'),
      page('/my', 'account/MyPage'),
      page('/login', 'account/LoginPage'),
      page('/register', 'account/RegisterPage'),
      page('/retrievePassword', 'account/RetrievePasswordPage'),
      page('/verifyEmail', 'account/VerifyEmailPage'),
      page('/favorites', 'lists/FavoritesPage'),
      page('/historys', 'lists/HistoryPage'),
      page('/unlocked', 'lists/UnlockedPage'),
      page('/search', 'search/SearchPage'),
      page('/searchDetail/:id', 'search/SearchDetailPage'),
      page('/shopping', 'shop/ShoppingPage'),
      page('/order/easy', 'shop/OrderEasyPage'),
      page('/order/result', 'shop/OrderResultPage'),
      page('/privacyPolicy', 'pages/PrivacyPolicyPage'),
      page('/refundPolicy', 'pages/RefundPolicyPage'),
      page('/serviceAgreement', 'pages/ServiceAgreementPage'),
      page('/contentPolicy', 'pages/ContentPolicyPage'),
      page('/commonQuestions', 'pages/CommonQuestionsPage'),
      page('/contactUs', 'pages/ContactUsPage'),
      page('*', 'pages/NotFoundPage'),
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
