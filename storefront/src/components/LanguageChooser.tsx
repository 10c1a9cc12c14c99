import { useId } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import { isLanguageCode, LANGUAGES } from '../i18n/languages';
import { GlobeIcon } from './Icons';

export function LanguageChooser() {
  const { language, setLanguage, t } = useI18n();
  const id = useId();
  return (
    <span className="language">
      <GlobeIcon size={18} />
      <label htmlFor={id} className="visually-hidden">
        {t('language.label')}
      </label>
      <select
        id={id}
        className="language__select"
        value={language}
        data-testid="language-chooser"
        onChange={(event) => {
          if (isLanguageCode(event.target.value)) setLanguage(event.target.value);
        }}
      >
        {LANGUAGES.map((entry) => (
          <option key={entry.code} value={entry.code} lang={entry.htmlLang}>
            {entry.name}
          </option>
        ))}
      </select>
    </span>
  );
}
