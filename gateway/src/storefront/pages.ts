import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { Request, Response, NextFunction } from 'express';
import type { CatalogPages, Homepage, SharedRankings, Video } from '@cliffhanger/catalog';
import { LOADER_DATA_ELEMENT_ID, RANKING_ROW_SIZE, languageOf, type LoaderData as SharedLoaderData, type ServerRenderer } from '@cliffhanger/storefront/ssr';
import { imageHint, pageHints } from './hints.ts';
import { escapeMarkup, jsonScript, originOf, seriesHead, siteDescriptionOf, withHead, type PageHead } from './seo.ts';

/** A page's loader data (storefront/src/ssr/contract.ts) in the catalog's types. */
type LoaderData = SharedLoaderData<Homepage, SharedRankings[keyof SharedRankings], Video>;

export interface PageOptions {
  /** Tags every page's head carries (the Sentry DSN the storefront reads). */
  headTags: string[];
  /** PUBLIC_URL: the origin of absolute links (sharing tags); the request's host without it. */
  publicUrl?: string;
  /** Series pages get their title, description and cover in the served head, and pages their loader data. */
  catalog?: CatalogPages;
  /** The storefront's server renderer (storefront/dist-ssr/entry-server.js); without it, the app's splash. */
  rendererFile?: string;
  /** A renderer that could not load or could not render a page: the page goes out rendered on the client, and this hears why. */
  onRenderError?: (error: unknown) => void;
}

// A page is served without what the catalog would add (a series' head, the first picture's hint,
// its server rendering) rather than kept waiting on a slow catalog.
const CATALOG_WAIT_MS = 1_000;
const SERIES_PAGE = /^\/videos\/([^/]+)\/?$/;
// Rendered pages kept for reuse: by address and language, while their loader data stays the same;
// the number is bounded (any query makes an address), the oldest dropped first.
const RENDERED_PAGES_KEPT = 200;
// What an ad or a referral adds to a landing address changes nothing a page renders: one rendering
// serves every click (the app reads them from the address itself).
const ATTRIBUTION_PARAM = /^(token|fbclid|ttclid|gclid|utm_\w+)$/;
// index.html's #app, written on one line (storefront/index.html): what the server's markup replaces.
const APP_ELEMENT = /<div id="app">[^\n]*<\/div>/;

/** A server rendering on its way: its `<html lang>`, and the markup of #app as it comes. */
interface Rendering {
  htmlLang: string;
  markup: AsyncIterable<Uint8Array | string> | Iterable<string>;
}

/**
 * Every page of the storefront (history-mode routing: any GET outside /api, /media and the assets
 * that accepts HTML): the built index.html, never cached, with the head a series page needs, the
 * hints of what its first render needs, and the settings the browser reads at run time. The home
 * page and series pages also carry their loader data and arrive server-rendered by React
 * (storefront/src/entry-server.tsx), their markup streamed into #app as it renders.
 */
export function pageHandler(distDir: string, options: PageOptions) {
  const indexFile = path.join(distDir, 'index.html');
  const { catalog, publicUrl, rendererFile, onRenderError } = options;
  const hintsFor = pageHints(distDir);

  /** The catalog's answer within CATALOG_WAIT_MS; undefined when it is late or failed. */
  const inTime = async <T,>(work: Promise<T>): Promise<T | undefined> => {
    // The wait ends with the work: a page answered at once leaves no timer behind it.
    const answered = new AbortController();
    try {
      return await Promise.race([work, sleep(CATALOG_WAIT_MS, undefined, { signal: answered.signal })]);
    } catch {
      return undefined;
    } finally {
      answered.abort();
    }
  };

  // The built page, read again only when a build replaces it (not once per visit).
  let built: { mtimeMs: number; page: string } | null = null;
  const builtPage = (): string | null => {
    try {
      const { mtimeMs } = fs.statSync(indexFile);
      if (built?.mtimeMs !== mtimeMs) built = { mtimeMs, page: fs.readFileSync(indexFile, 'utf8') };
      return built.page;
    } catch {
      return null;
    }
  };

  /**
   * What the catalog says about the page asked for: a series page's head, the picture its largest
   * paint waits for (the series' cover; on the home page, the first featured series' cover), and the
   * loader data it renders from. `missing` when the series does not exist.
   */
  async function load(req: Request, page: string): Promise<{ head: PageHead | null; image?: string; missing?: boolean; data?: LoaderData }> {
    if (!catalog) return { head: null };
    if (req.path === '/') {
      const [homepage, rankings] = await Promise.all([inTime(catalog.homepage()), inTime(catalog.sharedRankings(RANKING_ROW_SIZE))]);
      if (!homepage || !rankings) return { head: null };
      return { head: null, image: homepage.carousel.items[0]?.cover || undefined, data: { homepage, rankings } };
    }
    const id = SERIES_PAGE.exec(req.path)?.[1];
    if (!id) return { head: null };
    let videoId: string;
    try {
      videoId = decodeURIComponent(id);
    } catch {
      return { head: null, missing: true };
    }
    const video = await inTime(catalog.seriesPage(videoId));
    if (video === undefined) return { head: null };
    if (video === null) return { head: null, missing: true };
    return { head: seriesHead(originOf(req, publicUrl), video, siteDescriptionOf(page)), image: video.cover || undefined, data: { video } };
  }

  // The renderer, imported again only when a build replaces it (a module once imported stays in
  // memory: a rebuild under a running gateway, in development, keeps the old one too).
  let loadedRenderer: { mtimeMs: number; renderer: Promise<ServerRenderer<LoaderData> | null> } | null = null;
  const renderer = (): Promise<ServerRenderer<LoaderData> | null> => {
    if (!rendererFile) return Promise.resolve(null);
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(rendererFile).mtimeMs;
    } catch {
      return Promise.resolve(null);
    }
    if (loadedRenderer?.mtimeMs !== mtimeMs) {
      const imported = import(`${pathToFileURL(rendererFile).href}?build=${mtimeMs}`) as Promise<ServerRenderer<LoaderData>>;
      loadedRenderer = {
        mtimeMs,
        renderer: imported.catch((error: unknown) => {
          onRenderError?.(error);
          return null;
        }),
      };
    }
    return loadedRenderer.renderer;
  };

  const rendered = new Map<string, { data: string; html: string; htmlLang: string }>();
  const keep = (key: string, entry: { data: string; html: string; htmlLang: string }) => {
    rendered.delete(key);
    if (rendered.size >= RENDERED_PAGES_KEPT) rendered.delete(rendered.keys().next().value!);
    rendered.set(key, entry);
  };

  /**
   * The page's server rendering from its loader data (`data` is it as sent): one kept from an earlier
   * request while the data is the same, else React's stream, kept once it has ended whole. Null when
   * the page cannot be rendered on the server (no renderer, or its shell failed).
   */
  async function serverRender(req: Request, data: LoaderData, sent: string, signal: AbortSignal): Promise<Rendering | null> {
    const draw = await renderer();
    if (!draw) return null;
    const acceptLanguage = req.get('accept-language')?.slice(0, 500);
    const address = new URL(req.originalUrl, 'http://storefront');
    for (const name of [...address.searchParams.keys()]) if (ATTRIBUTION_PARAM.test(name)) address.searchParams.delete(name);
    const url = address.pathname + address.search;
    const key = `${languageOf(acceptLanguage)} ${url}`;
    const kept = rendered.get(key);
    if (kept?.data === sent) return { htmlLang: kept.htmlLang, markup: [kept.html] };
    let page: Awaited<ReturnType<typeof draw.renderPage>>;
    try {
      page = await draw.renderPage(url, acceptLanguage, data, { signal });
    } catch (error) {
      if (!signal.aborted) onRenderError?.(error);
      return null;
    }
    return {
      htmlLang: page.htmlLang,
      markup: (async function* () {
        const decoder = new TextDecoder();
        let html = '';
        for await (const chunk of page.stream) {
          html += decoder.decode(chunk, { stream: true });
          yield chunk;
        }
        keep(key, { data: sent, html: html + decoder.decode(), htmlLang: page.htmlLang });
      })(),
    };
  }

  return async (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.accepts('html')) return next();
    const page = builtPage();
    if (page === null) {
      res.status(503).type('text').send('The storefront is not built yet: run `npm run build`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    const { head, image, missing, data } = await load(req, page);
    // No such series: the app shows its not-found page, and crawlers get a status that says so.
    if (missing) res.status(404);
    const sent = data && jsonScript(LOADER_DATA_ELEMENT_ID, data);
    // A visitor who leaves stops the rendering of their page.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const rendering = data && sent ? await serverRender(req, data, sent, gone.signal) : null;
    const served = withHead(page, head, [
      ...(image ? [imageHint(image)] : []),
      ...hintsFor(req.path, req.get('accept-language'), page, { serverRendered: Boolean(rendering) }),
      ...(missing ? ['<meta name="robots" content="noindex" />'] : []),
      ...(sent ? [sent] : []),
      ...options.headTags,
    ]);
    res.type('html');
    if (!rendering) {
      res.send(served);
      return;
    }
    const app = APP_ELEMENT.exec(served)!;
    const before = served.slice(0, app.index).replace(/<html lang="[^"]*">/, () => `<html lang="${escapeMarkup(rendering.htmlLang)}">`);
    // The head first, so the browser fetches the style sheets and the picture while React renders.
    res.write(`${before}<div id="app" data-server-rendered>`);
    try {
      for await (const chunk of rendering.markup) res.write(chunk);
    } catch (error) {
      // Cut off mid-page: the browser renders the app itself where the markup does not hydrate.
      if (!gone.signal.aborted) onRenderError?.(error);
    }
    res.end(`</div>${served.slice(app.index + app[0].length)}`);
  };
}
