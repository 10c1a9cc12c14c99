import { QueryClient } from '@tanstack/react-query';
import { BrowserRouter, matchPath } from 'react-router-dom';
import { App } from './App';
import { catalogCalls } from './api/catalog';
import { catalogQueries } from './api/catalogQueries';
import { fillQueries, type PageFacts } from './api/pageFacts';
import { userCalls } from './api/user';
import { userQueries } from './api/userQueries';
import { startingLanguage } from './i18n/I18nProvider';
import { htmlLangOf, loadLanguage } from './i18n/languages';
import { keepAttribution, noteLanding } from './lib/attribution';
import { installMonitoring } from './lib/monitoring';
import { takeOver } from './lib/takeover';
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
// the gateway draws (entry-server.tsx), did their markup, which the first render takes over
// (lib/takeover.ts): the viewer's own data, asked for here, enters the cache only after that render,
// which is then the gateway's.
let factsRead = false;
try {
  const embedded = document.getElementById('page-data')?.textContent;
  if (embedded) fillQueries(queryClient, JSON.parse(embedded) as PageFacts);
  factsRead = Boolean(embedded);
} catch {
  // Unreadable: the page asks for its data itself.
}
let tookOver!: () => void;
const takenOver = new Promise<void>((resolve) => (tookOver = resolve));
// The splash has nothing to keep: the first render may as well show the viewer's data.
if (!document.getElementById('app')?.hasAttribute('data-server-rendered')) tookOver();
const afterTakeover =
  <T,>(call: () => Promise<T>) =>
  async (): Promise<T> => {
    try {
      return await call();
    } finally {
      await takenOver;
    }
  };
void queryClient.prefetchQuery({ ...userQueries.current(), queryFn: afterTakeover(userCalls.current) });
const series = matchPath('/videos/:id', window.location.pathname)?.params.id;
if (series) void queryClient.prefetchQuery({ ...catalogQueries.video(series), queryFn: afterTakeover(() => catalogCalls.video(series)) });

/**
 * Renders the app into #app once the page's chunk and the visitor's language are here; boot.ts calls
 * it. Not awaited at the top of this module: the page's chunk imports this one (the libraries it
 * holds), and a module still waiting on its own top-level await would keep that chunk from running.
 */
export async function start(): Promise<void> {
  try {
    const [initial, pageLoaded] = await Promise.all([loadLanguage(startingLanguage()), preloadPage(window.location.pathname)]);
    const htmlLang = htmlLangOf(initial.language);
    // The gateway drew the page in the language of the visitor's Accept-Language; one they chose here
    // may differ. A page whose chunk failed to load renders later (on a second try), past the takeover.
    const sameAsDrawn = factsRead && pageLoaded && document.documentElement.lang === htmlLang;
    document.documentElement.lang = htmlLang;
    takeOver(
      document.getElementById('app')!,
      <App queryClient={queryClient} initial={initial}>
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
      </App>,
      sameAsDrawn,
    );
  } finally {
    // Whatever happened, the viewer's own data is not held back for good.
    tookOver();
  }
}
