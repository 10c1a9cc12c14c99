import { describe, expect, it } from 'vitest';
import { dy } from './dy';
import { en, type Messages } from './en';
import { es } from './es';
import { fy } from './fy';
import { DEFAULT_LANGUAGE, LANGUAGES, loadMessages, preferredLanguage } from './languages';
import { pt } from './pt';
import { translate } from './translate';

const translations: Record<string, Messages> = { es, fy, dy, pt };
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe('interface languages', () => {
  it('are en (default), es, fy (French), dy (German) and pt, each named in its own language', () => {
    expect(DEFAULT_LANGUAGE).toBe('en');
    expect(LANGUAGES.map((language) => [language.code, language.name, language.htmlLang])).toEqual([
      ['en', 'English', 'en'],
      ['es', 'Español', 'es'],
      ['fy', 'Français', 'fr'],
      ['dy', 'Deutsch', 'de'],
      ['pt', 'Português', 'pt'],
    ]);
  });

  it.each(Object.keys(translations))('%s translates every key of en, with the same placeholders', (code) => {
    const messages = translations[code]!;
    expect(Object.keys(messages).sort()).toEqual(Object.keys(en).sort());
    for (const [key, english] of Object.entries(en)) {
      const text = messages[key as keyof Messages];
      expect(text.trim(), `${code} ${key}`).not.toBe('');
      expect(placeholders(text), `${code} ${key}`).toEqual(placeholders(english));
    }
  });

  it.each(Object.keys(translations))('%s is really translated, not copied from English', (code) => {
    const messages = translations[code]!;
    const same = Object.keys(en).filter((key) => messages[key as keyof Messages] === en[key as keyof Messages]);
    // Brand names, "VIP", "CVV", "FAQ", "Total" and the like legitimately read the same.
    expect(same.length).toBeLessThan(Object.keys(en).length * 0.05);
  });

  it('load on demand, English too, so the first bundle carries no texts', async () => {
    for (const [code, load] of Object.entries(loadMessages)) {
      expect(await load()).toBe(code === 'en' ? en : translations[code]);
    }
  });

  it('start in the stored language, else the browser’s, else English', () => {
    expect(preferredLanguage('dy', ['es-ES'])).toBe('dy');
    expect(preferredLanguage(null, ['nl-NL', 'fr-CA', 'es'])).toBe('fy');
    expect(preferredLanguage('xx', ['pt-BR'])).toBe('pt');
    expect(preferredLanguage(null, ['ja-JP'])).toBe('en');
  });

  it('keep the spec’s English texts', () => {
    expect(en['search.placeholder']).toBe('What you like...');
    expect(en['list.loading']).toBe('Loading...');
    expect(en['list.loadMore']).toBe('Load more');
    expect(en['list.noMore']).toBe('No more content');
    expect(en['video.copySuccess']).toBe('Copy Success');
    expect(en['video.copyFail']).toBe('Copy fail');
    expect(en['home.featured']).toBe('Featured Videos');
    expect(en['auth.enterEmail']).toBe('Please enter your email');
    expect(en['auth.enterPassword']).toBe('Please enter your password');
    expect(en['auth.repeatPassword']).toBe('Please repeat your password');
  });
});

describe('translate', () => {
  it('fills placeholders and shows the key of a missing text', () => {
    expect(translate(es, 'card.episodes', { count: 12 })).toBe('12 episodios');
    expect(translate({}, 'card.episodes', { count: 3 })).toBe('card.episodes');
    expect(translate(en, 'unlock.title')).toBe('Unlock episode {n}');
  });
});
