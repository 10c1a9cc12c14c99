import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, formatTime, JOB_STATES, type JobStateName } from '../api';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';
import { Paging } from '../Paging';
import { QueryStates } from '../QueryStates';
import type { ConsoleKey } from '../texts';

const PAGE_SIZE = 20;
/** How often the lists are asked again: a running transcode's progress moves every few seconds. */
export const REFRESH_MS = 3000;

/** The transcode queue by state (GET /api/admin/jobs), a failed job transcoded again (POST /api/admin/episodes/:id/retranscode). */
export function JobsSection() {
  const { t, locale } = useConsoleI18n();
  const queryClient = useQueryClient();
  const [state, setState] = useState<JobStateName>('waiting');
  const [page, setPage] = useState(1);
  const jobs = useQuery({
    queryKey: ['admin', 'jobs', state, page],
    queryFn: () => admin.jobs(state, page, PAGE_SIZE),
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });
  const retry = useMutation({
    mutationFn: admin.retranscode,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'jobs'] }),
  });
  const choose = (next: JobStateName) => {
    setState(next);
    setPage(1);
    retry.reset();
  };
  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">{t('jobs.title')}</h2>
      <p className="console-muted">{t('jobs.intro')}</p>
      <div className="console-states" role="group" aria-label={t('jobs.states')}>
        {JOB_STATES.map((name) => (
          <button key={name} type="button" className="console-button" aria-pressed={state === name} onClick={() => choose(name)}>
            {t(`jobs.state.${name}` as ConsoleKey)}
          </button>
        ))}
      </div>
      {retry.isSuccess && <p role="status">{t('jobs.retried', { episode: retry.data.id })}</p>}
      {retry.isError && <ErrorState error={retry.error} />}
      <QueryStates query={jobs} empty={t('jobs.none')}>
        {(data) => (
          <>
            <p className="console-muted">{t('jobs.total', { count: data.total })}</p>
            <div className="console-table-wrap">
              <table className="console-table">
                <thead>
                  <tr>
                    <th scope="col">{t('jobs.episode')}</th>
                    <th scope="col">{t('jobs.created')}</th>
                    <th scope="col">{t('jobs.attempts')}</th>
                    <th scope="col">{state === 'failed' ? t('jobs.reason') : t('jobs.progress')}</th>
                    {state === 'failed' && (
                      <th scope="col">
                        <span className="console-visually-hidden">{t('jobs.retry')}</span>
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((job) => {
                    const episodeId = job.data?.episodeId;
                    return (
                      <tr key={job.id}>
                        <td>
                          <code>{episodeId ?? job.id}</code>
                        </td>
                        <td>{formatTime(job.createdAt, locale)}</td>
                        <td>{job.attempts}</td>
                        {state === 'failed' ? (
                          <td>
                            <code className="console-error-text">{job.lastError ?? '—'}</code>
                          </td>
                        ) : (
                          <td>
                            {state === 'active' ? (
                              <progress max={100} value={job.progress} aria-label={t('jobs.progressOf', { episode: episodeId ?? job.id, percent: job.progress })} />
                            ) : (
                              '—'
                            )}
                          </td>
                        )}
                        {state === 'failed' && (
                          <td>
                            {episodeId && (
                              <button
                                type="button"
                                className="console-button"
                                disabled={retry.isPending}
                                aria-label={`${t('jobs.retry')} ${episodeId}`}
                                onClick={() => retry.mutate(episodeId)}
                              >
                                {t('jobs.retry')}
                              </button>
                            )}
                          </td>
                        )}
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            <Paging page={page} hasMore={data.hasMore} onPage={setPage} />
          </>
        )}
      </QueryStates>
    </section>
  );
}
