import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { CONSOLE_LANGUAGES, LANGUAGE_KEY, startingLanguage, translate, type ConsoleKey, type ConsoleLanguage } from './texts';

interface ConsoleI18n {
  language: ConsoleLanguage;
  /** BCP 47 tag for Intl (dates, money). */
  locale: string;
  setLanguage: (language: ConsoleLanguage) => void;
  t: (key: ConsoleKey, values?: Record<string, string | number>) => string;
}

const Context = createContext<ConsoleI18n | null>(null);

export function ConsoleI18nProvider({ children, initial }: { children: ReactNode; initial?: ConsoleLanguage }) {
  const [language, setLanguage] = useState<ConsoleLanguage>(
    () => initial ?? startingLanguage(localStorage.getItem(LANGUAGE_KEY), typeof navigator === 'undefined' ? [] : navigator.languages),
  );
  const locale = CONSOLE_LANGUAGES.find((entry) => entry.code === language)!.htmlLang;
  useEffect(() => {
    document.documentElement.lang = locale;
    document.title = translate(language, 'title');
  }, [language, locale]);
  const value: ConsoleI18n = {
    language,
    locale,
    setLanguage: (next) => {
      localStorage.setItem(LANGUAGE_KEY, next);
      setLanguage(next);
    },
    t: (key, values) => translate(language, key, values),
  };
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

export function useConsoleI18n(): ConsoleI18n {
  const value = useContext(Context);
  if (!value) throw new Error('useConsoleI18n outside ConsoleI18nProvider');
  return value;
}
