import { Link } from 'react-router-dom';
import { useT } from '../i18n/I18nProvider';
import { PageCommitted } from '../lib/hydration';

/** Shown when a page fails to load or render, e.g. its chunk went missing after a deploy. */
export function RouteError() {
  const t = useT();
  return (
    <div className="empty-page">
      <PageCommitted />
      <h1>{t('common.unknownError')}</h1>
      <div className="empty-page__actions">
        <button type="button" className="button button--primary" onClick={() => window.location.reload()}>
          {t('list.retry')}
        </button>
        <Link to="/" className="button button--ghost">
          {t('notFound.home')}
        </Link>
      </div>
    </div>
  );
}
