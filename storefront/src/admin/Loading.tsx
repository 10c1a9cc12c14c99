import { useConsoleI18n } from './i18n';

/** A section's data on its way. */
export function Loading() {
  const { t } = useConsoleI18n();
  return (
    <p className="console-muted" role="status">
      {t('loading')}
    </p>
  );
}
