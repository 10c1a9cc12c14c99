import { QueryClient } from '@tanstack/react-query';
import { startTransition } from 'react';
import { createRoot, hydrateRoot, type Root, type RootOptions } from 'react-dom/client';
import { BrowserRouter, matchPath } from 'react-router-dom';
import { App } from './App';
import { catalogCalls } from './api/catalog';
import { catalogQueries } from './api/catalogQueries';
import { fillQueries, type LoaderData } from './api/loaderData';
import { userCalls } from './api/user';
import { userQueries } from './api/userQueries';
import { startingLanguage } from './i18n/I18nProvider';
import { htmlLangOf, loadLanguage, preferredLanguage } from './i18n/languages';
import { keepAttribution, noteLanding } from './lib/attribution';
import { pageHydrated, pageHydration } from './lib/hydration';
import { installMonitoring, reportRecoverableError } from './lib/monitoring';
import { AppRoutes, preloadPage } from './router';
import { LOADER_DATA_ELEMENT_ID } from './ssr/contract';

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

const container = document.getElementById('app')!;
const serverRendered = container.hasAttribute('data-server-rendered');

// What the first render needs all starts at once, instead of each piece once the one before has
// arrived: the page's chunk, the visitor's language, the current user, and the page's own data. The
// data every visitor shares came with the page as its loader data (gateway/src/storefront/pages.ts),
// and so, for the pages the server renders (entry-server.tsx), did their markup, which React
// hydrates: the viewer's own data, asked for here, enters the cache only once React has hydrated
// the page (lib/hydration.ts), so that every render React hydrates with is the server's.
let loaderDataRead = false;
try {
  const embedded = document.getElementById(LOADER_DATA_ELEMENT_ID)?.textContent;
  if (embedded) fillQueries(queryClient, JSON.parse(embedded) as LoaderData);
  loaderDataRead = Boolean(embedded);
} catch {
  // Unreadable: the page asks for its data itself.
}
// A page rendered on the client has nothing to keep equal: its first render may show the viewer's data.
if (!serverRendered) pageHydrated();
const afterHydration =
  <T,>(call: () => Promise<T>) =>
  async (): Promise<T> => {
    try {
      return await call();
    } finally {
      await pageHydration;
    }
  };
void queryClient.prefetchQuery({ ...userQueries.current(), queryFn: afterHydration(userCalls.current) });
const series = matchPath('/videos/:id', window.location.pathname)?.params.id;
if (series) void queryClient.prefetchQuery({ ...catalogQueries.video(series), queryFn: afterHydration(() => catalogCalls.video(series)) });

const rootOptions: RootOptions = { onRecoverableError: reportRecoverableError };

/**
 * Hydrates the server's markup in #app, or renders the app there, once the page's chunk and the
 * visitor's language are here; boot.ts calls it. Not awaited at the top of this module: the page's
 * chunk imports this one (the libraries it holds), and a module still waiting on its own top-level
 * await would keep that chunk from running. Resolves with what it did, and the root it did it in.
 */
export async function start(): Promise<{ how: 'hydrated' | 'rendered'; root: Root }> {
  try {
    const preferred = startingLanguage();
    // The server rendered in the language of the visitor's Accept-Language (<html lang>); the
    // visitor may have chosen another here: the page hydrates in the server's and switches after.
    // Without its loader data the server's render cannot be repeated here: rendered on the client, in
    // the visitor's own language at once.
    const hydrating = serverRendered && loaderDataRead;
    const rendered = hydrating ? preferredLanguage(null, [document.documentElement.lang]) : preferred;
    const [initial, pageLoaded] = await Promise.all([
      loadLanguage(rendered),
      preloadPage(window.location.pathname),
      // Fetched alongside, so the switch right after hydration waits for nothing.
      rendered === preferred ? null : loadLanguage(preferred),
    ]);
    // A page whose chunk failed to load would hydrate only once a second try brings it: rendered on the client.
    const hydrate = hydrating && pageLoaded;
    document.documentElement.lang = htmlLangOf(initial.language);
    const tree = (
      <App queryClient={queryClient} initial={initial} preferred={preferred}>
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
      </App>
    );
    // In a transition, as a page of React's own frameworks does (Next.js's app-index): React then
    // hydrates or renders in slices of a few milliseconds, yielding to the browser between them (a tap
    // is answered at once, and the phone's main thread is never blocked for the whole page), where
    // outside one it would do the whole page in one long task.
    if (hydrate) {
      let root!: Root;
      startTransition(() => void (root = hydrateRoot(container, tree, rootOptions)));
      return { how: 'hydrated', root };
    }
    container.textContent = '';
    const root = createRoot(container, rootOptions);
    startTransition(() => root.render(tree));
    return { how: 'rendered', root };
  } catch (error) {
    // Whatever happened, the viewer's own data is not held back for good.
    pageHydrated();
    throw error;
  }
}
