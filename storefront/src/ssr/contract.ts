// What the gateway and the storefront's server renderer agree on, in one place: the shape of a page's
// loader data, the languages and how a request's Accept-Language picks one, and which of the
// storefront's sources a server-rendered page needs first. The gateway imports this file (and only
// this one of the storefront: .dependency-cruiser.cjs), so it imports nothing itself.

/** How many series a ranking row of the home page shows (the gateway loads the rows that long). */
export const RANKING_ROW_SIZE = 12;

/**
 * What the gateway loads for a page before it renders it, the same for every visitor (never one
 * viewer's own): it renders the page from it (entry-server.tsx) and sends it along
 * (`<script id="loader-data">`), so the browser hydrates from the same data without asking again.
 * Each side names the API's JSON with its own types: the storefront its api/types.ts, the gateway
 * the catalog's.
 */
export interface LoaderData<Homepage = unknown, RankingRow = unknown, Video = unknown> {
  homepage?: Homepage;
  /** The home page's ranking rows every visitor shares, by section, RANKING_ROW_SIZE long. */
  rankings?: Partial<Record<'top' | 'trending' | 'new', RankingRow>>;
  /** A series page's series, as a visitor who has unlocked nothing sees it. */
  video?: Video;
}

/** What the server renderer's build (dist-ssr/entry-server.js, src/entry-server.tsx) offers the gateway. */
export interface ServerRenderer<Data = LoaderData> {
  /**
   * The markup of `<div id="app">` for `url`, as a new visitor with this Accept-Language sees it,
   * streamed as React renders it; `htmlLang` is its `<html lang>`. Rejects when the shell cannot
   * render; `onError` hears any later error.
   */
  renderPage(
    url: string,
    acceptLanguage: string | undefined,
    data: Data,
    options?: { signal?: AbortSignal; onError?: (error: unknown) => void },
  ): Promise<{ stream: ReadableStream<Uint8Array>; htmlLang: string }>;
}

/** The id of the script element that carries a page's loader data. */
export const LOADER_DATA_ELEMENT_ID = 'loader-data';

// Codes as the product names them (spec section 9): fy holds the French texts, dy the German ones.
export const LANGUAGES = [
  { code: 'en', name: 'English', htmlLang: 'en' },
  { code: 'es', name: 'Español', htmlLang: 'es' },
  { code: 'fy', name: 'Français', htmlLang: 'fr' },
  { code: 'dy', name: 'Deutsch', htmlLang: 'de' },
  { code: 'pt', name: 'Português', htmlLang: 'pt' },
] as const;

export type LanguageCode = (typeof LANGUAGES)[number]['code'];

export const DEFAULT_LANGUAGE: LanguageCode = 'en';

export function isLanguageCode(value: unknown): value is LanguageCode {
  return LANGUAGES.some((language) => language.code === value);
}

export const htmlLangOf = (code: LanguageCode): string => LANGUAGES.find((language) => language.code === code)?.htmlLang ?? 'en';

/**
 * The language a visitor sees: the one they chose, else the first of their browser's languages the
 * site speaks ("fr-CA" is fy, "de" is dy), else English.
 */
export function preferredLanguage(stored: string | null, browserLanguages: readonly string[]): LanguageCode {
  if (isLanguageCode(stored)) return stored;
  for (const tag of browserLanguages) {
    const primary = tag.toLowerCase().split('-')[0];
    const match = LANGUAGES.find((language) => language.htmlLang === primary);
    if (match) return match.code;
  }
  return DEFAULT_LANGUAGE;
}

/** Tags an Accept-Language header may list before the rest is ignored (a header is the visitor's to make up). */
const ACCEPT_LANGUAGE_TAGS = 20;

/**
 * The language a new visitor with these Accept-Language preferences sees: what the browser picks
 * from `navigator.languages` (the same list, in the order of their q-values) when nothing is stored.
 */
export function languageOf(acceptLanguage: string | undefined): LanguageCode {
  const tags = (acceptLanguage ?? '')
    .split(',')
    .slice(0, ACCEPT_LANGUAGE_TAGS)
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

/** A page module of the router (router.tsx): its file under src/features/, without the extension. */
export type PageModuleName = `${string}/${string}Page`;

/** The pages the gateway renders on the server, and which page module each shows (router.tsx reads these). */
export const SERVER_RENDERED_PAGES = {
  home: { path: /^\/$/, module: 'home/HomePage' },
  series: { path: /^\/videos\/([^/]+)\/?$/, module: 'video/VideoPage' },
} as const satisfies Record<string, { path: RegExp; module: PageModuleName }>;

/** The app's module, which the page's script (boot.ts) imports. */
const APP_SOURCE = 'src/main.tsx';

/**
 * The sources (as the build manifest names them) whose chunks a landing on `pathname` needs before
 * its first client render: the app, the visitor's language, and the page's own module when the page
 * is a landing page (the home page, a series page). The gateway hints them (gateway/src/storefront/hints.ts).
 */
export function firstRenderSources(pathname: string, acceptLanguage: string | undefined): string[] {
  const page = Object.values(SERVER_RENDERED_PAGES).find((entry) => entry.path.test(pathname));
  return [APP_SOURCE, `src/i18n/${languageOf(acceptLanguage)}.ts`, ...(page ? [pageSource(page.module)] : [])];
}

/** The source file of a page module, as the build manifest names it. */
export const pageSource = (module: PageModuleName): string => `src/features/${module}.tsx`;
