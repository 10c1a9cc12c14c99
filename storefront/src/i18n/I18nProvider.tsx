import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { setInterfaceLanguage } from '../api/client';
import { readStored, STORAGE_KEYS, writeStored } from '../lib/storage';
import type { MessageKey, Messages } from './en';
import { htmlLangOf, loadLanguage, preferredLanguage, type LanguageCode } from './languages';
import { translate, type Vars } from './translate';

interface I18nValue {
  language: LanguageCode;
  setLanguage: (language: LanguageCode) => void;
  t: (key: MessageKey, vars?: Vars) => string;
}

export interface LoadedLanguage {
  language: LanguageCode;
  messages: Messages;
}

const I18nContext = createContext<I18nValue | null>(null);

/** The language this visitor starts in (languages.ts, preferredLanguage). */
export function startingLanguage(): LanguageCode {
  return preferredLanguage(readStored(STORAGE_KEYS.language), typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language]);
}

/**
 * The interface texts. main.tsx loads the starting language before the first render and passes it
 * as `initial`; without it (tests) the provider loads it and renders nothing until then. A page the
 * server rendered is hydrated in the language the server rendered it in (`initial`), and switches to
 * the visitor's own (`preferred`, one they chose here) right after. A chosen language replaces the
 * texts once its chunk has arrived, so no key ever shows in between.
 */
export function I18nProvider({ children, initial, preferred }: { children: ReactNode; initial?: LoadedLanguage; preferred?: LanguageCode }) {
  const [loaded, setLoaded] = useState<LoadedLanguage | null>(initial ?? null);
  const latest = useRef(0);

  const switchTo = useCallback((language: LanguageCode) => {
    const request = ++latest.current;
    loadLanguage(language).then((next) => {
      if (request === latest.current) setLoaded(next);
    });
  }, []);

  useEffect(() => {
    if (!initial) switchTo(startingLanguage());
    else if (preferred && preferred !== initial.language) switchTo(preferred);
  }, [initial, preferred, switchTo]);

  const language = loaded?.language;
  // Before the paint that shows the new texts, so that screen readers and the browser's hyphenation never read one language tagged as another;
  // the API client's calls from then on ask for mails in it too.
  useLayoutEffect(() => {
    if (!language) return;
    document.documentElement.lang = htmlLangOf(language);
    setInterfaceLanguage(htmlLangOf(language));
  }, [language]);

  const setLanguage = useCallback(
    (next: LanguageCode) => {
      writeStored(STORAGE_KEYS.language, next);
      switchTo(next);
    },
    [switchTo],
  );

  const messages = loaded?.messages;
  const t = useCallback((key: MessageKey, vars?: Vars) => translate(messages ?? {}, key, vars), [messages]);
  const value = useMemo(() => (language ? { language, setLanguage, t } : null), [language, setLanguage, t]);
  if (!value) return null;
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n needs an I18nProvider');
  return value;
}

export function useT(): I18nValue['t'] {
  return useI18n().t;
}
