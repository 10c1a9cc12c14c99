import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import express, { type Request, type Response, type NextFunction } from 'express';
import type { CatalogPages, Homepage, SharedRankings, Video } from '@cliffhanger/catalog';
import { imageHint, pageHints } from './page-hints.ts';
import { escapeMarkup, originOf, pageData, robotsTxt, seriesHead, siteDescriptionOf, SITEMAP_MAX_URLS, sitemapXml, withHead, type PageHead } from './seo.ts';

export interface StorefrontOptions {
  /** SENTRY_DSN: written into every page as `<meta name="sentry-dsn">`, from which the storefront starts Sentry. */
  sentryDsn?: string;
  /** PUBLIC_URL: the origin of absolute links (sitemap, sharing tags); the request's host without it. */
  publicUrl?: string;
  /** Series pages get their title, description and cover in the served head, and the sitemap lists them. */
  catalog?: CatalogPages;
  /**
   * The storefront's renderer of first screens (storefront/dist-ssr/entry-server.js, built with the
   * storefront): the home page and series pages arrive drawn from the data sent with them. Without it,
   * the app's splash.
   */
  rendererFile?: string;
  /** A renderer that could not load or could not draw a page: the page goes out undrawn, and this hears why. */
  onRenderError?: (error: unknown) => void;
}

/** What the storefront's renderer draws a page from (storefront/src/api/pageFacts.ts): the same for every visitor. */
interface PageFacts {
  homepage?: Homepage;
  rankings?: SharedRankings;
  /** A series page's series, as a visitor who has unlocked nothing sees it. */
  video?: Video;
}

/** storefront/src/entry-server.tsx, as built. */
interface Renderer {
  renderPage(url: string, acceptLanguage: string | undefined, facts: PageFacts): Promise<{ html: string; htmlLang: string }>;
  languageOf(acceptLanguage: string | undefined): string;
}

// A crawler that finds a new series within a minute is soon enough; the list is one query per minute at most.
const SITEMAP_CACHE_MS = 60_000;
// A page is served without what the catalog would add (a series' head, the first picture's hint)
// rather than kept waiting on a slow catalog.
const CATALOG_WAIT_MS = 1_000;
const SERIES_PAGE = /^\/videos\/([^/]+)\/?$/;
// The home page's ranking rows are this long (storefront/src/api/catalogQueries.ts, RANKING_ROW_SIZE).
const RANKING_ROW_SIZE = 12;
// Drawn pages kept for reuse: by address and language, while their data stays the same; the number
// is bounded (any query makes an address), the oldest dropped first.
const RENDERED_PAGES_KEPT = 200;
// What an ad or a referral adds to a landing address changes nothing a page draws: one drawing
// serves every click (the app reads them from the address itself).
const ATTRIBUTION_PARAM = /^(token|fbclid|ttclid|gclid|utm_\w+)$/;
// index.html's #app, written on one line (storefront/index.html): what the drawn page replaces.
const APP_ELEMENT = /<div id="app">[^\n]*<\/div>/;

/**
 * Serves the built storefront: hashed assets cached for a year, index.html never cached, and
 * index.html for every other GET outside /api and /media (history-mode routing), with the
 * settings the browser reads at run time in its head (no call before the first render).
 */
export function storefrontHandler(distDir: string, options: StorefrontOptions = {}) {
  const runtime = options.sentryDsn ? [`<meta name="sentry-dsn" content="${escapeMarkup(options.sentryDsn)}" />`] : [];
  const indexFile = path.join(distDir, 'index.html');
  const { catalog, publicUrl, rendererFile, onRenderError } = options;
  const hintsFor = pageHints(distDir);
  let listed: { ids: Promise<string[]>; until: number } | null = null;

  const listedSeries = (): Promise<string[]> => {
    if (!catalog) return Promise.resolve([]);
    if (!listed || listed.until <= Date.now()) {
      const ids = catalog.listedSeries(SITEMAP_MAX_URLS - 1);
      listed = { ids, until: Date.now() + SITEMAP_CACHE_MS };
      // A failed read is not kept: the next request asks again.
      ids.catch(() => (listed = null));
    }
    return listed.ids;
  };

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
   * facts its first screen is drawn from. `missing` when the series does not exist.
   */
  async function factsOf(req: Request, page: string): Promise<{ head: PageHead | null; image?: string; missing?: boolean; facts?: PageFacts }> {
    if (!catalog) return { head: null };
    if (req.path === '/') {
      const [homepage, rankings] = await Promise.all([inTime(catalog.homepage()), inTime(catalog.sharedRankings(RANKING_ROW_SIZE))]);
      if (!homepage || !rankings) return { head: null };
      // The same for every visitor: sent with the page, the first render shows it without another round trip.
      return { head: null, image: homepage.carousel.items[0]?.cover || undefined, facts: { homepage, rankings } };
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
    return { head: seriesHead(originOf(req, publicUrl), video, siteDescriptionOf(page)), image: video.cover || undefined, facts: { video } };
  }

  // The renderer, imported again only when a build replaces it (a module once imported stays in
  // memory: a rebuild under a running gateway, in development, keeps the old one too).
  let loadedRenderer: { mtimeMs: number; renderer: Promise<Renderer | null> } | null = null;
  const renderer = (): Promise<Renderer | null> => {
    if (!rendererFile) return Promise.resolve(null);
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(rendererFile).mtimeMs;
    } catch {
      return Promise.resolve(null);
    }
    if (loadedRenderer?.mtimeMs !== mtimeMs) {
      const imported = import(`${pathToFileURL(rendererFile).href}?build=${mtimeMs}`) as Promise<Renderer>;
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
  /** The page's first screen, drawn from its facts (`data` is them as sent); null when it cannot be. */
  async function drawn(req: Request, facts: PageFacts, data: string): Promise<{ html: string; htmlLang: string } | null> {
    const draw = await renderer();
    if (!draw) return null;
    const acceptLanguage = req.get('accept-language')?.slice(0, 500);
    try {
      const address = new URL(req.originalUrl, 'http://storefront');
      for (const name of [...address.searchParams.keys()]) if (ATTRIBUTION_PARAM.test(name)) address.searchParams.delete(name);
      const url = address.pathname + address.search;
      const key = `${draw.languageOf(acceptLanguage)} ${url}`;
      const kept = rendered.get(key);
      if (kept?.data === data) return kept;
      const page = await draw.renderPage(url, acceptLanguage, facts);
      rendered.delete(key);
      if (rendered.size >= RENDERED_PAGES_KEPT) rendered.delete(rendered.keys().next().value!);
      rendered.set(key, { data, ...page });
      return page;
    } catch (error) {
      onRenderError?.(error);
      return null;
    }
  }

  const assetsDir = path.join(distDir, 'assets');
  const hashed = 'public, max-age=31536000, immutable';
  // The build's own brotli or gzip copy of a hashed file (storefront/vite.config.ts), for a browser that takes it.
  const precompressed = (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.path.startsWith('/assets/')) return next();
    // Brotli whenever it is accepted at all: browsers list gzip first without preferring it.
    const accepted = req.acceptsEncodings();
    const encoding = accepted.includes('br') ? 'br' : accepted.includes('gzip') ? 'gzip' : null;
    const file = path.join(assetsDir, path.basename(req.path));
    const copy = `${file}.${encoding === 'br' ? 'br' : 'gz'}`;
    if (!encoding || !fs.existsSync(copy)) return next();
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Content-Encoding', encoding);
    res.setHeader('Cache-Control', hashed);
    res.type(path.extname(file));
    res.sendFile(copy, { cacheControl: false }, (error) => error && next(error));
  };
  const assets = express.static(distDir, {
    index: false,
    setHeaders(res, file) {
      res.setHeader('Cache-Control', file.startsWith(assetsDir + path.sep) ? hashed : 'public, max-age=300');
    },
  });
  return [
    express.Router()
      .get('/robots.txt', (req, res) => {
        res.setHeader('Cache-Control', 'public, max-age=3600');
        res.type('text/plain').send(robotsTxt(originOf(req, publicUrl)));
      })
      .get('/sitemap.xml', async (req, res) => {
        let ids: string[];
        try {
          ids = await listedSeries();
        } catch {
          res.setHeader('Retry-After', '60');
          res.status(503).type('text/plain').send('The sitemap is not available right now.');
          return;
        }
        res.setHeader('Cache-Control', 'public, max-age=300');
        res.type('application/xml').send(sitemapXml(originOf(req, publicUrl), ids));
      }),
    precompressed,
    assets,
    async (req: Request, res: Response, next: NextFunction) => {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.accepts('html')) return next();
      const page = builtPage();
      if (page === null) {
        res.status(503).type('text').send('The storefront is not built yet: run `npm run build`.');
        return;
      }
      res.setHeader('Cache-Control', 'no-cache');
      const { head, image, missing, facts } = await factsOf(req, page);
      // No such series: the app shows its not-found page, and crawlers get a status that says so.
      if (missing) res.status(404);
      const data = facts && pageData('page', facts);
      const screen = facts && data ? await drawn(req, facts, data) : null;
      const extra = [
        ...(image ? [imageHint(image)] : []),
        ...hintsFor(req.path, req.get('accept-language'), page, { drawn: Boolean(screen) }),
        ...(missing ? ['<meta name="robots" content="noindex" />'] : []),
        ...(data ? [data] : []),
        ...runtime,
      ];
      const served = withHead(page, head, extra);
      res.type('html').send(
        screen
          ? served
              .replace(/<html lang="[^"]*">/, `<html lang="${escapeMarkup(screen.htmlLang)}">`)
              // A function, not a string: the markup's own "$" must not read as a replacement pattern.
              .replace(APP_ELEMENT, () => `<div id="app" data-server-rendered>${screen.html}</div>`)
          : served,
      );
    },
  ];
}
