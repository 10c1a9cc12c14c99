import type { ComponentType } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { AppShell } from './components/AppShell';
import { AppSplash } from './components/AppSplash';
import { RouteError } from './components/RouteError';
import { keepAttribution } from './lib/attribution';

type PageModule = Record<string, unknown>;

/** A route whose page module loads on demand; `name` is the component the module exports. */
function page(path: string, load: () => Promise<PageModule>, name: string): RouteObject {
  return {
    path,
    lazy: async () => ({ Component: (await load())[name] as ComponentType }),
  };
}

export const routes: RouteObject[] = [
  {
    id: 'root',
    Component: AppShell,
    ErrorBoundary: RouteError,
    HydrateFallback: AppSplash,
    // Runs before every navigation: keeps token, fbclid and ttclid of the target URL (spec section 2).
    loader: ({ request }) => {
      keepAttribution(new URL(request.url).searchParams);
      return null;
    },
    shouldRevalidate: () => true,
    children: [
      page('/', () => import('./features/home/HomePage'), 'HomePage'),
      page('/browse/:id', () => import('./features/home/BrowsePage'), 'BrowsePage'),
      page('/more/:id', () => import('./features/home/MorePage'), 'MorePage'),
      page('/videos/:id', () => import('./features/video/VideoPage'), 'VideoPage'),
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

export function createRouter() {
  return createBrowserRouter(routes);
}
