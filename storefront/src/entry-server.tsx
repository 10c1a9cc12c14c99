// The server renderer: the gateway renders the home page and series pages with it (gateway/src/
// storefront/pages.ts), from the page's loader data, through React DOM's streaming server renderer.
// The browser hydrates that markup (main.tsx) with the same tree, data and language. Built on its
// own (`vite build --ssr`, vite.config.ts) into dist-ssr/entry-server.js.
import { QueryClient } from '@tanstack/react-query';
import { renderToReadableStream } from 'react-dom/server';
import { StaticRouter } from 'react-router-dom';
import { fillQueries, type LoaderData } from './api/loaderData';
import { App } from './App';
import { loadLanguage } from './i18n/languages';
import { AppRoutes, preloadPage } from './router';
import { htmlLangOf, languageOf, type ServerRenderer } from './ssr/contract';

/** The query cache of a page rendered on the server: its loader data, and nothing asked for (queries do not run here). */
function queryClientWith(data: LoaderData): QueryClient {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  fillQueries(queryClient, data);
  return queryClient;
}

/**
 * A page as a new visitor with this Accept-Language sees it first (ssr/contract.ts, ServerRenderer):
 * the language the browser will pick, the page's module loaded before rendering (so nothing suspends
 * and the shell is the whole page), no viewer's own data.
 */
export const renderPage: ServerRenderer<LoaderData>['renderPage'] = async (url, acceptLanguage, data, { signal, onError } = {}) => {
  const [initial] = await Promise.all([loadLanguage(languageOf(acceptLanguage)), preloadPage(new URL(url, 'http://localhost').pathname)]);
  const stream = await renderToReadableStream(
    <App queryClient={queryClientWith(data)} initial={initial}>
      <StaticRouter location={url}>
        <AppRoutes />
      </StaticRouter>
    </App>,
    {
      signal,
      onError,
      // Every boundary in line, however large: React would otherwise send a large page after the
      // shell with an inline script to put it in place, which the site's Content Security Policy
      // (no inline script) forbids, leaving the page hidden until the browser rendered it again.
      progressiveChunkSize: Number.POSITIVE_INFINITY,
    },
  );
  return { stream, htmlLang: htmlLangOf(initial.language) };
};
