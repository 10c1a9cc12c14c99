import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { readStored, STORAGE_KEYS, writeStored } from '../lib/storage';
import { en, type MessageKey, type Messages } from './en';
import { DEFAULT_LANGUAGE, isLanguageCode, LANGUAGES, loadMessages, type LanguageCode } from './languages';
import { translate, type Vars } from './translate';

interface I18nValue {
  language: LanguageCode;
  setLanguage: (language: LanguageCode) => void;
  t: (key: MessageKey, vars?: Vars) => string;
}

const I18nContext = createContext<I18nValue | null>(null);

function storedLanguage(): LanguageCode {
  const stored = readStored(STORAGE_KEYS.language);
  return isLanguageCode(stored) ? stored : DEFAULT_LANGUAGE;
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<LanguageCode>(storedLanguage);
  const [messages, setMessages] = useState<Messages>(en);

  useEffect(() => {
    let current = true;
    const load = language === 'en' ? Promise.resolve(en) : loadMessages[language]();
    load
      .then((loaded) => current && setMessages(loaded))
      .catch(() => current && setMessages(en));
    const htmlLang = LANGUAGES.find((entry) => entry.code === language)?.htmlLang ?? 'en';
    document.documentElement.lang = htmlLang;
    return () => {
      current = false;
    };
  }, [language]);

  const setLanguage = useCallback((next: LanguageCode) => {
    writeStored(STORAGE_KEYS.language, next);
    setLanguageState(next);
  }, []);

  const t = useCallback((key: MessageKey, vars?: Vars) => translate(messages, key, vars), [messages]);
  const value = useMemo(() => ({ language, setLanguage, t }), [language, setLanguage, t]);
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
