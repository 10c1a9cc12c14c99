import { useConsoleI18n } from './i18n';

/** Previous and next page of a list the API pages (`Page.hasMore`). */
export function Paging({ page, hasMore, onPage }: { page: number; hasMore: boolean; onPage: (page: number) => void }) {
  const { t } = useConsoleI18n();
  return (
    <nav className="console-paging" aria-label={t('paging.page', { page })}>
      <button type="button" className="console-button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('paging.previous')}
      </button>
      <span>{t('paging.page', { page })}</span>
      <button type="button" className="console-button" disabled={!hasMore} onClick={() => onPage(page + 1)}>
        {t('paging.next')}
      </button>
    </nav>
  );
}
