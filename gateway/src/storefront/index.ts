import type { CatalogPages } from '@cliffhanger/catalog';
import { staticAssets } from './assets.ts';
import { consoleHandler } from './console.ts';
import { pageHandler } from './pages.ts';
import { escapeMarkup, seoRoutes } from './seo.ts';

export interface StorefrontOptions {
  /** SENTRY_DSN: written into every page as `<meta name="sentry-dsn">`, from which the storefront starts Sentry. */
  sentryDsn?: string;
  /** PUBLIC_URL: the origin of absolute links (sitemap, sharing tags); the request's host without it. */
  publicUrl?: string;
  /** Series pages get their title, description and cover in the served head, and the sitemap lists them. */
  catalog?: CatalogPages;
  /**
   * The storefront's server renderer (storefront/dist-ssr/entry-server.js, built with the storefront):
   * the home page and series pages arrive rendered from their loader data. Without it, the app's splash.
   */
  rendererFile?: string;
  /** A renderer that could not load or could not render a page: the page goes out rendered on the client, and this hears why. */
  onRenderError?: (error: unknown) => void;
}

/**
 * Serves the built storefront (docs/storefront.md): robots.txt and the sitemap (seo.ts), the hashed
 * assets (assets.ts), the operators' console at /admin (console.ts), and every other page (pages.ts),
 * server-rendered where it can be.
 */
export function storefrontHandler(distDir: string, options: StorefrontOptions = {}) {
  const headTags = options.sentryDsn ? [`<meta name="sentry-dsn" content="${escapeMarkup(options.sentryDsn)}" />`] : [];
  return [seoRoutes(options.catalog, options.publicUrl), ...staticAssets(distDir), consoleHandler(distDir), pageHandler(distDir, { ...options, headTags })];
}
