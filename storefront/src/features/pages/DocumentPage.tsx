import type { ReactNode } from 'react';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/en';
import type { LanguageCode } from '../../i18n/languages';
import { formatDate } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import './pages.css';

export interface DocumentSection {
  heading: string;
  body: ReactNode;
}

/** The text of a document in one language. */
export interface DocumentContent {
  intro: string;
  sections: DocumentSection[];
}

/** A document in every interface language. */
export type DocumentTranslations = Record<LanguageCode, DocumentContent>;

interface DocumentPageProps {
  title: MessageKey;
  /** ISO date (YYYY-MM-DD) of the last revision; shown, like every date, in US English (spec section 9). */
  updated: string;
  content: DocumentTranslations;
}


/** A policy or help page in the current language: a readable column with a table of contents. */
export function DocumentPage({ title, updated, content }: DocumentPageProps) {
  const { t, language } = useI18n();
  const { intro, sections } = content[language];
  useDocumentTitle(t(title));
  return (
    <article className="document">
      <header>
        <h1 className="page__title">{t(title)}</h1>
        <p className="document__updated">{t('document.updated', { date: formatDate(`${updated}T12:00:00Z`) })}</p>
        <div className="document__intro">
          <p>{intro}</p>
        </div>
      </header>
      {sections.length > 3 && (
        <nav className="document__toc" aria-label={t('document.contents')}>
          <ol>
            {sections.map((section, index) => (
              <li key={section.heading}>
                <a href={`#part-${index + 1}`}>{section.heading}</a>
              </li>
            ))}
          </ol>
        </nav>
      )}
      {sections.map((section, index) => (
        <section key={section.heading} id={`part-${index + 1}`} className="document__section">
          <h2>{section.heading}</h2>
          {section.body}
        </section>
      ))}
    </article>
  );
}
