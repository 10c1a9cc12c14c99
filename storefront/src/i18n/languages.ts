import { DEFAULT_LANGUAGE, type LanguageCode } from '../ssr/contract';
import type { Messages } from './en';

// The languages and how a visitor's is chosen are shared with the gateway's server rendering.
export { DEFAULT_LANGUAGE, htmlLangOf, isLanguageCode, LANGUAGES, languageOf, preferredLanguage, type LanguageCode } from '../ssr/contract';

// Every language's texts are a chunk of their own, English too: a first visit downloads only the
// language it shows (storefront/bench/bundle-size.mjs counts one).
export const loadMessages: Record<LanguageCode, () => Promise<Messages>> = {
  en: () => import('./en').then((module) => module.en),
  es: () => import('./es').then((module) => module.es),
  fy: () => import('./fy').then((module) => module.fy),
  dy: () => import('./dy').then((module) => module.dy),
  pt: () => import('./pt').then((module) => module.pt),
};

/** A language's texts; English when its chunk cannot load (a deploy replaced it, the network dropped). */
export async function loadLanguage(code: LanguageCode): Promise<{ language: LanguageCode; messages: Messages }> {
  try {
    return { language: code, messages: await loadMessages[code]() };
  } catch (error) {
    if (code === DEFAULT_LANGUAGE) throw error;
    return { language: DEFAULT_LANGUAGE, messages: await loadMessages[DEFAULT_LANGUAGE]() };
  }
}
