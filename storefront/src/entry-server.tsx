import { QueryClient } from '@tanstack/react-query';
import { renderToStringAsync } from 'preact-render-to-string';
import { StaticRouter } from 'react-router';
import { fillQueries, type PageFacts } from './api/pageFacts';
import { App } from './App';
import { htmlLangOf, loadLanguage, preferredLanguage, type LanguageCode } from './i18n/languages';
import { AppRoutes, preloadPage } from './router';

export interface RenderedPage {
  /** The markup of `<div id="app">`, which the browser's first render takes over (lib/takeover.ts). */
  html: string;
  /** The `<html lang>` of that markup. */
  htmlLang: string;
}

/** The query cache of a page drawn on the server: its facts, and nothing asked for (queries do not run here). */
function queryClientWith(facts: PageFacts): QueryClient {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  fillQueries(queryClient, facts);
  return queryClient;
}

/**
 * The language a new visitor with these Accept-Language preferences sees: what main.tsx picks from
 * the browser's languages (the same list, in the order of their q-values) when nothing is stored.
 */
export function languageOf(acceptLanguage: string | undefined): LanguageCode {
  const tags = (acceptLanguage ?? '')
    .split(',')
    .slice(0, 20)
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const quality = Number(params.find((param) => param.trim().startsWith('q='))?.trim().slice(2) ?? 1);
      return { tag: tag.trim(), quality: Number.isFinite(quality) ? quality : 0 };
    })
    .filter((entry) => entry.tag && entry.quality > 0)
    .sort((a, b) => b.quality - a.quality);
  return preferredLanguage(
    null,
    tags.map((entry) => entry.tag),
  );
}

export type { PageFacts };

/**
 * The first screen of a page as a new visitor's browser would draw it: their phone paints it as soon
 * as the HTML and the style sheet arrive, instead of after the scripts have loaded and run, and the
 * scripts then take it over without drawing it again (its largest picture keeps its first paint).
 */
export async function renderPage(url: string, acceptLanguage: string | undefined, facts: PageFacts): Promise<RenderedPage> {
  const [initial] = await Promise.all([loadLanguage(languageOf(acceptLanguage)), preloadPage(new URL(url, 'http://localhost').pathname)]);
  const html = await renderToStringAsync(
    <App queryClient={queryClientWith(facts)} initial={initial}>
      <StaticRouter location={url}>
        <AppRoutes />
      </StaticRouter>
    </App>,
  );
  return { html, htmlLang: htmlLangOf(initial.language) };
}
