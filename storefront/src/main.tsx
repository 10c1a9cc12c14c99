import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, type ComponentChild } from 'preact';
import { StrictMode } from 'react';
import { BrowserRouter, matchPath } from 'react-router-dom';
import { catalogQueries } from './api/catalogQueries';
import { fillQueries, type PageFacts } from './api/pageFacts';
import { userQueries } from './api/userQueries';
import { I18nProvider, startingLanguage } from './i18n/I18nProvider';
import { htmlLangOf, loadLanguage } from './i18n/languages';
import { keepAttribution, noteLanding } from './lib/attribution';
import { installMonitoring } from './lib/monitoring';
import { AppRoutes, preloadPage } from './router';

// Before the first call, so the current-user call already carries the landing URL's ids.
noteLanding();
keepAttribution(window.location.search);
installMonitoring();

const queryClient = new QueryClient({
  defaultOptions: {
    // Failures are shown by the client (toasts) or in place by the page; retrying would repeat them.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
  },
});

// What the first render needs all starts at once, instead of each piece once the one before has
// arrived: the page's chunk, the visitor's language, the current user, and the page's own data. The
// data every visitor shares came with the page (gateway/src/storefront.ts), and so, for the pages
// the gateway draws (entry-server.tsx), did their markup: the first render below takes that markup
// over node by node (Preact reuses the elements it finds in #app), so nothing is drawn twice.
try {
  const embedded = document.getElementById('page-data')?.textContent;
  if (embedded) fillQueries(queryClient, JSON.parse(embedded) as PageFacts);
} catch {
  // Unreadable: the page asks for its data itself.
}
void queryClient.prefetchQuery(userQueries.current());
const series = matchPath('/videos/:id', window.location.pathname)?.params.id;
if (series) void queryClient.prefetchQuery(catalogQueries.video(series));
/**
 * Renders the app into #app once the page's chunk and the visitor's language are here; boot.ts calls
 * it. Not awaited at the top of this module: the page's chunk imports this one (the libraries it
 * holds), and a module still waiting on its own top-level await would keep that chunk from running.
 */
export async function start(): Promise<void> {
  const [initial] = await Promise.all([loadLanguage(startingLanguage()), preloadPage(window.location.pathname)]);
  document.documentElement.lang = htmlLangOf(initial.language);
  const app = document.getElementById('app')!;
  // Without the gateway's markup, #app holds the splash: nothing to take over.
  if (!app.hasAttribute('data-server-rendered')) app.textContent = '';
  // Preact's own render, not react-dom's createRoot (which empties the container first); its types
  // are Preact's, the elements the same.
  render(
    (
      <StrictMode>
        <QueryClientProvider client={queryClient}>
          <I18nProvider initial={initial}>
            <BrowserRouter>
              <AppRoutes />
            </BrowserRouter>
          </I18nProvider>
        </QueryClientProvider>
      </StrictMode>
    ) as unknown as ComponentChild,
    app,
  );
}
