import express, { type Request } from 'express';
import type { CatalogPages, SeriesPreview } from '@cliffhanger/catalog';

/** The sitemap protocol's bound for one file (sitemaps.org); past it a sitemap index would be needed. */
export const SITEMAP_MAX_URLS = 50_000;

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text and attribute values in HTML and XML: series titles and descriptions are whatever an operator typed. */
export const escapeMarkup = (value: string) => value.replace(/[&<>"']/g, (character) => escapes[character]!);

// A Host header is the client's to choose: only a plain name or address (and port) becomes a link.
const PLAIN_HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Where absolute links point: PUBLIC_URL when set, else the host the request was sent to. */
export function originOf(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const host = req.get('host') ?? '';
  return `${req.protocol === 'https' ? 'https' : 'http'}://${PLAIN_HOST.test(host) ? host.toLowerCase() : 'localhost'}`;
}

// Pages that belong to one visitor, and payment steps: nothing a search engine should list.
const PRIVATE_PATHS = ['/api/', '/individual', '/my', '/login', '/register', '/retrievePassword', '/verifyEmail', '/favorites', '/historys', '/unlocked', '/order/'];

export function robotsTxt(origin: string): string {
  return ['User-agent: *', 'Allow: /', ...PRIVATE_PATHS.map((path) => `Disallow: ${path}`), '', `Sitemap: ${origin}/sitemap.xml`, ''].join('\n');
}

export const seriesPath = (id: string) => `/videos/${encodeURIComponent(id)}`;

/** The home page and every listed series page, as absolute URLs. */
export function sitemapXml(origin: string, seriesIds: readonly string[]): string {
  const urls = [`${origin}/`, ...seriesIds.map((id) => origin + seriesPath(id))];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls.map((url) => `  <url><loc>${escapeMarkup(url)}</loc></url>`),
    '</urlset>',
    '',
  ].join('\n');
}

export interface PageHead {
  title: string;
  description: string;
  /** Absolute URL of this page. */
  url: string;
  /** Absolute URL of the picture a link preview shows. */
  image?: string;
  type: 'website' | 'video.tv_show';
}

const SITE_NAME = 'Cliffhanger';
// Search results show about this many characters of a description.
const DESCRIPTION_LENGTH = 160;

function shorten(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1).trimEnd()}…`;
}

/** A series page's head: its title, description, canonical URL and Open Graph / Twitter card with its cover. */
export function seriesHead(origin: string, series: SeriesPreview, fallbackDescription: string): PageHead {
  return {
    title: `${series.title} · ${SITE_NAME}`,
    description: shorten(series.description || fallbackDescription, DESCRIPTION_LENGTH),
    url: origin + seriesPath(series.id),
    image: series.cover ? origin + series.cover : undefined,
    type: 'video.tv_show',
  };
}

/** The tags of a head, every value escaped. */
export function headTags(head: PageHead): string {
  const meta = (attribute: 'name' | 'property', key: string, value: string) => `<meta ${attribute}="${key}" content="${escapeMarkup(value)}" />`;
  return [
    `<title>${escapeMarkup(head.title)}</title>`,
    meta('name', 'description', head.description),
    `<link rel="canonical" href="${escapeMarkup(head.url)}" />`,
    meta('property', 'og:site_name', SITE_NAME),
    meta('property', 'og:type', head.type),
    meta('property', 'og:title', head.title),
    meta('property', 'og:description', head.description),
    meta('property', 'og:url', head.url),
    ...(head.image ? [meta('property', 'og:image', head.image)] : []),
    meta('name', 'twitter:card', head.image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', head.title),
    meta('name', 'twitter:description', head.description),
    ...(head.image ? [meta('name', 'twitter:image', head.image)] : []),
  ].join('');
}

// The built index.html's own head tags that a page's head replaces (storefront/index.html writes them this way).
const REPLACED = /\s*(?:<title>[^<]*<\/title>|<meta (?:name="(?:description|twitter:[\w:]+)"|property="og:[\w:]+")[^>]*>|<link rel="canonical"[^>]*>)/g;

/** The page with its default title, description and sharing tags replaced by `head`'s, and `extra` tags added. */
export function withHead(page: string, head: PageHead | null, extra: string[] = []): string {
  const tags = [...(head ? [headTags(head)] : []), ...extra];
  if (tags.length === 0) return page;
  const base = head ? page.replace(REPLACED, '') : page;
  // A function, not a string: a "$&" or "$'" in a title must not read as a replacement pattern.
  return base.replace('</head>', () => `${tags.join('')}</head>`);
}

/**
 * Data the storefront reads before its first render (storefront/src/main.tsx), as a JSON script
 * block: never run, and no `<` inside, so no title can close the block and start markup of its own.
 */
export const jsonScript = (id: string, value: unknown) =>
  `<script type="application/json" id="${escapeMarkup(id)}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;

/** The default description of the site, read from the built page. */
export function siteDescriptionOf(page: string): string {
  const match = /<meta name="description" content="([^"]*)"/.exec(page);
  return match ? match[1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&') : SITE_NAME;
}

// A crawler that finds a new series within a minute is soon enough; the list is one query per minute at most.
const SITEMAP_CACHE_MS = 60_000;

/** /robots.txt and /sitemap.xml (the home page and every listed series page). */
export function seoRoutes(catalog: CatalogPages | undefined, publicUrl: string | undefined) {
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
  return express
    .Router()
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
    });
}
