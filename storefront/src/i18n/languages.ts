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

// Only English ships in the first bundle; the others load when chosen.
export const loadMessages: Record<Exclude<LanguageCode, 'en'>, () => Promise<Messages>> = {
  es: () => import('./es').then((module) => module.es),
  fy: () => import('./fy').then((module) => module.fy),
  dy: () => import('./dy').then((module) => module.dy),
  pt: () => import('./pt').then((module) => module.pt),
};
