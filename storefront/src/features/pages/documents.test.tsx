import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { I18nProvider } from '../../i18n/I18nProvider';
import { LANGUAGES } from '../../i18n/languages';
import { STORAGE_KEYS } from '../../lib/storage';
import { commonQuestions } from './content/commonQuestions';
import { contactUs } from './content/contactUs';
import { contentPolicy } from './content/contentPolicy';
import { privacyPolicy } from './content/privacyPolicy';
import { refundPolicy } from './content/refundPolicy';
import { serviceAgreement } from './content/serviceAgreement';
import type { DocumentTranslations } from './DocumentPage';
import { PrivacyPolicyPage } from './PrivacyPolicyPage';

const documents: Record<string, DocumentTranslations> = {
  privacyPolicy,
  refundPolicy,
  serviceAgreement,
  contentPolicy,
  commonQuestions,
  contactUs,
};

beforeEach(() => localStorage.clear());
afterEach(cleanup);

describe('document pages', () => {
  it.each(Object.keys(documents))('%s is written in every interface language', (name) => {
    const document = documents[name]!;
    expect(Object.keys(document).sort()).toEqual(LANGUAGES.map((language) => language.code).sort());
    for (const language of LANGUAGES) {
      const { intro, sections } = document[language.code];
      expect(intro.trim(), `${name} ${language.code}`).not.toBe('');
      expect(sections.length, `${name} ${language.code}`).toBe(document.en.sections.length);
      if (language.code === 'en') continue;
      expect(intro, `${name} ${language.code}`).not.toBe(document.en.intro);
      sections.forEach((section, index) => {
        expect(section.heading, `${name} ${language.code}`).not.toBe(document.en.sections[index]!.heading);
      });
    }
  });

  it('shows a document in the chosen language, French for fy', async () => {
    localStorage.setItem(STORAGE_KEYS.language, 'fy');
    render(
      <I18nProvider>
        <PrivacyPolicyPage />
      </I18nProvider>,
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Politique de confidentialité' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 2, name: 'Ce que nous collectons' })).toBeTruthy();
    expect(screen.getByText(/November 1, 2026/)).toBeTruthy();
    expect(screen.queryByText('What we collect')).toBeNull();
  });

  it('keeps the English source text for en', async () => {
    render(
      <I18nProvider>
        <PrivacyPolicyPage />
      </I18nProvider>,
    );
    expect(await screen.findByRole('heading', { level: 2, name: 'What we collect' })).toBeTruthy();
    expect(screen.getByText('Last updated: November 1, 2026')).toBeTruthy();
  });
});
