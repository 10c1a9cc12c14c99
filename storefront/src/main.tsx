import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, matchPath } from 'react-router-dom';
import { catalogQueries } from './api/catalogQueries';
import { userQueries } from './api/userQueries';
import { I18nProvider, startingLanguage } from './i18n/I18nProvider';
import { htmlLangOf, loadLanguage } from './i18n/languages';
import { keepAttribution } from './lib/attribution';
import { installMonitoring } from './lib/monitoring';
import { AppRoutes, preloadPage } from './router';
import './styles/base.css';
import './styles/shell.css';
import './styles/components.css';

// Before the first call, so the current-user call already carries the landing URL's ids.
keepAttribution(window.location.search);
installMonitoring();

const queryClient = new QueryClient({
  defaultOptions: {
    // Failures are shown by the client (toasts) or in place by the page; retrying would repeat them.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
  },
});

// What the first render needs all starts at once, instead of each piece once the one before has
// arrived: the page's chunk, the visitor's language, the current user, and the page's own data; the
// home page's data came with the page itself (gateway/src/storefront.ts).
try {
  const embedded = document.getElementById('homepage-data')?.textContent;
  if (embedded) queryClient.setQueryData(catalogQueries.homepage().queryKey, JSON.parse(embedded));
} catch {
  // Unreadable: the home page asks for its data itself.
}
preloadPage(window.location.pathname);
void queryClient.prefetchQuery(userQueries.current());
const series = matchPath('/videos/:id', window.location.pathname)?.params.id;
if (series) void queryClient.prefetchQuery(catalogQueries.video(series));
const initial = await loadLanguage(startingLanguage());
document.documentElement.lang = htmlLangOf(initial.language);

createRoot(document.getElementById('app')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <I18nProvider initial={initial}>
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
      </I18nProvider>
    </QueryClientProvider>
  </StrictMode>,
);
