import { AdminError } from './api';
import { useConsoleI18n } from './i18n';

/** A failed call, said plainly: no connection, no role, a call this server lacks, or the server's own message. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useConsoleI18n();
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof AdminError) {
    if (error.status === 0) text = t('error.network');
    else if (error.status === 401 || error.code === 401) text = t('error.unauthorized');
    else if (error.status === 403 || error.code === 403) text = t('error.forbidden');
    else if (error.status === 404 && error.code === 404 && /cannot|not found|^HTTP/i.test(error.message)) text = t('error.missing', { status: `HTTP ${error.status}` });
    else if (error.status === 405 || error.status === 501) text = t('error.missing', { status: `HTTP ${error.status}` });
  }
  return (
    <div className="console-error" role="alert">
      <strong>{t('error.title')}</strong>
      <p>{text}</p>
      {onRetry && (
        <button type="button" className="console-button" onClick={onRetry}>
          {t('error.retry')}
        </button>
      )}
    </div>
  );
}
