import fs from 'node:fs';
import path from 'node:path';
import { escapeMarkup } from './seo.ts';

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

// The pages visitors land on most, by path, with the source of their chunk in the storefront's build
// manifest (storefront/src/router.tsx): without a hint the browser finds the page's chunk only once the
// app has run, one more round trip before anything of the page shows.
const LANDING_PAGES = [
  { path: /^\/$/, source: 'src/features/home/HomePage.tsx' },
  { path: /^\/videos\/[^/]+\/?$/, source: 'src/features/video/VideoPage.tsx' },
];

// The app itself, which the page's script (storefront/src/boot.ts) imports.
const APP_SOURCE = 'src/main.tsx';

// A new visitor sees the first of their browser's languages the site speaks (storefront/src/i18n/languages.ts,
// preferredLanguage): by primary tag, the source of its texts.
const LANGUAGE_TEXTS: Record<string, string> = { en: 'src/i18n/en.ts', es: 'src/i18n/es.ts', fr: 'src/i18n/fy.ts', de: 'src/i18n/dy.ts', pt: 'src/i18n/pt.ts' };

function textsFor(acceptLanguage: string | undefined): string {
  const tags = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const quality = Number(params.find((param) => param.trim().startsWith('q='))?.trim().slice(2) ?? 1);
      return { primary: tag.toLowerCase().split('-')[0]!, quality: Number.isFinite(quality) ? quality : 0 };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality);
  const match = tags.find((entry) => LANGUAGE_TEXTS[entry.primary]);
  return LANGUAGE_TEXTS[match?.primary ?? 'en']!;
}

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
   * `page` is the built index.html: what it loads already needs no hint. A page that arrives drawn
   * (`drawn`) needs its chunks' styles before its first paint, as style sheets, and nothing else
   * before it: its app is fetched once it has painted (storefront/src/boot.ts), so the picture a
   * visitor waits for has the network to itself. An undrawn page gets the app, its page and its
   * language fetched at once, each a hint.
   */
  return (pathname: string, acceptLanguage: string | undefined, page: string, { drawn = false } = {}): string[] => {
    const chunks = manifest();
    if (!chunks) return [];
    const scripts = new Set<string>();
    const styles = new Set<string>();
    collect(chunks, APP_SOURCE, scripts, styles);
    collect(chunks, textsFor(acceptLanguage), scripts, styles);
    const landing = LANDING_PAGES.find((entry) => entry.path.test(pathname));
    if (landing) collect(chunks, landing.source, scripts, styles);
    const fresh = (file: string) => !page.includes(`/${file}"`);
    if (drawn) return [...styles].filter(fresh).map((file) => `<link rel="stylesheet" crossorigin href="/${escapeMarkup(file)}" />`);
    return [
      ...[...styles].filter(fresh).map((file) => `<link rel="preload" as="style" crossorigin href="/${escapeMarkup(file)}" />`),
      ...[...scripts].filter(fresh).map((file) => `<link rel="modulepreload" crossorigin href="/${escapeMarkup(file)}" />`),
    ];
  };
}

/** The picture a page's largest paint waits for, fetched first (a series' cover, the first featured one). */
export const imageHint = (url: string) => `<link rel="preload" as="image" fetchpriority="high" href="${escapeMarkup(url)}" />`;
