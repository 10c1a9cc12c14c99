import fs from 'node:fs';
import path from 'node:path';
import { firstRenderSources } from '@cliffhanger/storefront/ssr';
import { escapeMarkup } from './seo.ts';

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

/**
 * The tags that let the browser fetch, alongside the app, what the first render of a landing page
 * needs: its chunk and the chunks it imports, its styles, and the visitor's language; read from the
 * build manifest (storefront/vite.config.ts writes it), again whenever the build changes.
 */
export function pageHints(distDir: string) {
  const manifestFile = path.join(distDir, '.vite', 'manifest.json');
  let cached: { mtimeMs: number; manifest: Manifest } | null = null;

  function manifest(): Manifest | null {
    try {
      const { mtimeMs } = fs.statSync(manifestFile);
      if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, manifest: JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest };
      return cached.manifest;
    } catch {
      return null;
    }
  }

  function collect(chunks: Manifest, key: string, scripts: Set<string>, styles: Set<string>): void {
    const chunk = chunks[key];
    if (!chunk || scripts.has(chunk.file)) return;
    scripts.add(chunk.file);
    for (const css of chunk.css ?? []) styles.add(css);
    for (const imported of chunk.imports ?? []) collect(chunks, imported, scripts, styles);
  }

  /**
   * `page` is the built index.html: what it loads already needs no hint. A server-rendered page
   * (`serverRendered`) needs its chunks' styles before its first paint, as style sheets, and nothing
   * else before it: its app is fetched once it has painted (storefront/src/boot.ts), so the picture a
   * visitor waits for has the network to itself. A page rendered on the client gets the app, its
   * page and its language fetched at once, each a hint.
   */
  return (pathname: string, acceptLanguage: string | undefined, page: string, { serverRendered = false } = {}): string[] => {
    const chunks = manifest();
    if (!chunks) return [];
    const scripts = new Set<string>();
    const styles = new Set<string>();
    for (const source of firstRenderSources(pathname, acceptLanguage)) collect(chunks, source, scripts, styles);
    const fresh = (file: string) => !page.includes(`/${file}"`);
    if (serverRendered) return [...styles].filter(fresh).map((file) => `<link rel="stylesheet" crossorigin href="/${escapeMarkup(file)}" />`);
    return [
      ...[...styles].filter(fresh).map((file) => `<link rel="preload" as="style" crossorigin href="/${escapeMarkup(file)}" />`),
      ...[...scripts].filter(fresh).map((file) => `<link rel="modulepreload" crossorigin href="/${escapeMarkup(file)}" />`),
    ];
  };
}

/** The picture a page's largest paint waits for, fetched first (a series' cover, the first featured one). */
export const imageHint = (url: string) => `<link rel="preload" as="image" fetchpriority="high" href="${escapeMarkup(url)}" />`;
