import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, formatTime } from '../api';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';
import { QueryStates } from '../QueryStates';
import { useMayAct } from '../role';
import { HealthSection } from './HealthSection';
import { JobsSection } from './JobsSection';

/**
 * The site at work: the job queue, each part's health, and the bus's dead events. The dead events are
 * an admin's (the API refuses an operator): an event may carry a payment or a viewer's details.
 */
export default function OperationsPage() {
  const { t } = useConsoleI18n();
  const isAdmin = useMayAct('admin');
  return (
    <>
      <h1>{t('nav.operations')}</h1>
      <JobsSection />
      <HealthSection />
      {isAdmin ? (
        <DeadEvents />
      ) : (
        <section aria-labelledby="operations-title">
          <h2 id="operations-title">{t('operations.title')}</h2>
          <p className="console-muted">{t('operations.adminOnly')}</p>
        </section>
      )}
    </>
  );
}

/** Dead events with their error (GET /api/admin/events/dead), replayed one or all (POST /api/admin/events/replay). */
function DeadEvents() {
  const { t, locale } = useConsoleI18n();
  const queryClient = useQueryClient();
  const dead = useQuery({ queryKey: ['admin', 'dead-events'], queryFn: admin.deadEvents });
  const replay = useMutation({
    mutationFn: (ids?: string[]) => admin.replay(ids),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'dead-events'] }),
  });
  return (
    <section aria-labelledby="operations-title">
      <h2 id="operations-title">{t('operations.title')}</h2>
      <p className="console-muted">{t('operations.intro')}</p>
      {replay.isSuccess && <p role="status">{t('operations.replayed', { count: replay.data.replayed })}</p>}
      {replay.isError && <ErrorState error={replay.error} />}
      <QueryStates query={dead} empty={t('operations.none')}>
        {(data) => (
          <>
            <button type="button" className="console-button console-button--primary" disabled={replay.isPending} onClick={() => replay.mutate(undefined)}>
              {t('operations.replayAll')}
            </button>
            <div className="console-table-wrap">
              <table className="console-table">
                <thead>
                  <tr>
                    <th scope="col">{t('operations.consumer')}</th>
                    <th scope="col">{t('operations.type')}</th>
                    <th scope="col">{t('operations.error')}</th>
                    <th scope="col">{t('operations.failed')}</th>
                    <th scope="col">{t('operations.attempts')}</th>
                    <th scope="col">
                      <span className="console-visually-hidden">{t('operations.replay')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((event) => (
                    <tr key={`${event.consumer}:${event.eventId}`}>
                      <td>{event.consumer}</td>
                      <td>
                        {event.type ?? '—'}
                        <br />
                        <code className="console-muted">{event.eventId}</code>
                      </td>
                      <td>
                        <code className="console-error-text">{event.error}</code>
                      </td>
                      <td>{formatTime(event.failedAt, locale)}</td>
                      <td>{event.attempts}</td>
                      <td>
                        {event.replayRequestedAt ? (
                          <span className="console-muted">{t('operations.requested', { date: formatTime(event.replayRequestedAt, locale) })}</span>
                        ) : (
                          <button
                            type="button"
                            className="console-button"
                            disabled={replay.isPending}
                            aria-label={`${t('operations.replay')} ${event.type ?? event.eventId}`}
                            onClick={() => replay.mutate([event.eventId])}
                          >
                            {t('operations.replay')}
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </QueryStates>
    </section>
  );
}
