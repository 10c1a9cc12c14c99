import type { Messages } from './en';

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

// Every language's texts are a chunk of their own, English too: a first visit downloads only the
// language it shows (storefront/bench/bundle-size.mjs counts one).
export const loadMessages: Record<LanguageCode, () => Promise<Messages>> = {
  en: () => import('./en').then((module) => module.en),
  es: () => import('./es').then((module) => module.es),
  fy: () => import('./fy').then((module) => module.fy),
  dy: () => import('./dy').then((module) => module.dy),
  pt: () => import('./pt').then((module) => module.pt),
};

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

/** A language's texts; English when its chunk cannot load (a deploy replaced it, the network dropped). */
export async function loadLanguage(code: LanguageCode): Promise<{ language: LanguageCode; messages: Messages }> {
  try {
    return { language: code, messages: await loadMessages[code]() };
  } catch (error) {
    if (code === DEFAULT_LANGUAGE) throw error;
    return { language: DEFAULT_LANGUAGE, messages: await loadMessages[DEFAULT_LANGUAGE]() };
  }
}
