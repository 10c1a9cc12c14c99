import type { ReactNode } from 'react';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/en';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import './pages.css';

export interface DocumentSection {
  heading: string;
  body: ReactNode;
}

interface DocumentPageProps {
  title: MessageKey;
  updated: string;
  intro: ReactNode;
  sections: DocumentSection[];
}

/** A policy or help page: a readable column with a table of contents. */
export function DocumentPage({ title, updated, intro, sections }: DocumentPageProps) {
  const { t, language } = useI18n();
  useDocumentTitle(t(title));
  return (
    <article className="document">
      <header>
        <h1 className="page__title">{t(title)}</h1>
        <p className="document__updated">{t('document.updated', { date: updated })}</p>
        {language !== 'en' && <p className="notice">{t('document.englishOnly')}</p>}
        <div className="document__intro" lang="en">{intro}</div>
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
        <section key={section.heading} id={`part-${index + 1}`} className="document__section" lang="en">
          <h2>{section.heading}</h2>
          {section.body}
        </section>
      ))}
    </article>
  );
}
