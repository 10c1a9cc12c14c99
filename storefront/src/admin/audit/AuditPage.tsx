import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { useAddressFilter } from '../addressFilter';
import { AUDIT_ACTIONS, admin, dayStart, formatTime, type AuditEntry, type AuditFilter } from '../api';
import { DateRange } from '../DateRange';
import { Paging } from '../Paging';
import { QueryStates } from '../QueryStates';
import { useConsoleI18n } from '../i18n';
import { changedFields, shown } from './diff';

const PAGE_SIZE = 20;
const FILTERS = ['actor', 'action', 'target', 'from', 'to'] as const;

/** `user:<id>` (a target) or a member's id (an actor) as a link to that user; anything else as itself. */
function UserLink({ id, children }: { id: string | null; children: string }) {
  return id ? <Link to={`/admin/users/${encodeURIComponent(id)}`}>{children}</Link> : <code>{children}</code>;
}

/** Who made every admin change, what to and when, with what changed (GET /api/admin/audit); the filter lives in the address. */
export default function AuditPage() {
  const { t, locale } = useConsoleI18n();
  const { params, page, search, goTo } = useAddressFilter(FILTERS);
  const filter: AuditFilter = {
    actor: params.get('actor') || undefined,
    action: params.get('action') || undefined,
    target: params.get('target') || undefined,
    from: dayStart(params.get('from')),
    to: dayStart(params.get('to'), true),
  };
  const entries = useQuery({
    queryKey: ['admin', 'audit', filter, page],
    queryFn: () => admin.audit(filter, page, PAGE_SIZE),
    placeholderData: keepPreviousData,
  });

  const actorOf = (entry: AuditEntry) =>
    entry.actor === 'token' ? <span>{t('audit.byToken')}</span> : entry.actor === 'cli' ? <span>{t('audit.byCli')}</span> : <UserLink id={entry.actor}>{entry.actor}</UserLink>;

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">{t('audit.title')}</h1>
      <form role="search" aria-label={t('audit.search')} className="console-filters" onSubmit={search}>
        <div className="console-field">
          <label>
            {t('audit.actor')}
            <input name="actor" type="search" defaultValue={params.get('actor') ?? ''} aria-describedby="audit-actor-hint" />
          </label>
          <span id="audit-actor-hint" className="console-muted console-hint">
            {t('audit.actorHint')}
          </span>
        </div>
        <label>
          {t('audit.action')}
          <select name="action" defaultValue={params.get('action') ?? ''}>
            <option value="">{t('audit.anyAction')}</option>
            {AUDIT_ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('audit.target')}
          <input name="target" type="search" placeholder="plan:vip-month" defaultValue={params.get('target') ?? ''} />
        </label>
        <DateRange from={params.get('from') ?? ''} to={params.get('to') ?? ''} />
        <button type="submit" className="console-button console-button--primary">
          {t('orders.submit')}
        </button>
      </form>
      <QueryStates query={entries} empty={t('audit.none')}>
        {(data) => (
          <div className="console-table-wrap">
            <table className="console-table console-table--cards" aria-labelledby="audit-title" aria-busy={entries.isFetching}>
              <thead>
                <tr>
                  <th scope="col">{t('audit.at')}</th>
                  <th scope="col">{t('audit.actor')}</th>
                  <th scope="col">{t('audit.action')}</th>
                  <th scope="col">{t('audit.target')}</th>
                  <th scope="col">{t('audit.changes')}</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((entry) => (
                  <tr key={entry.id}>
                    <td data-label={t('audit.at')}>{formatTime(entry.at, locale)}</td>
                    <td data-label={t('audit.actor')}>{actorOf(entry)}</td>
                    <td data-label={t('audit.action')}>
                      <code>{entry.action}</code>
                    </td>
                    <td data-label={t('audit.target')}>
                      <UserLink id={entry.target.startsWith('user:') ? entry.target.slice('user:'.length) : null}>{entry.target}</UserLink>
                    </td>
                    <td data-label={t('audit.changes')}>
                      <Changes entry={entry} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {entries.data && <Paging page={page} hasMore={entries.data.hasMore} onPage={goTo} />}
    </section>
  );
}

/** The fields a change touched, each before and after; the whole entry's JSON a click away. */
function Changes({ entry }: { entry: AuditEntry }) {
  const { t } = useConsoleI18n();
  const changes = changedFields(entry.before, entry.after);
  const kind = entry.before === null ? t('audit.created') : entry.after === null ? t('audit.removed') : null;
  return (
    <>
      {kind && <p className="console-audit-kind">{kind}</p>}
      {changes.length === 0 ? (
        <span className="console-muted">{t('audit.noChange')}</span>
      ) : (
        <dl className="console-diff" aria-label={t('audit.changesOf', { action: entry.action, target: entry.target })}>
          {changes.map((change) => (
            <div key={change.field}>
              <dt>{change.field || t('audit.value')}</dt>
              <dd>
                {change.before !== undefined && (
                  <del>
                    <span className="console-visually-hidden">{t('audit.before')} </span>
                    {shown(change.before)}
                  </del>
                )}
                {change.before !== undefined && change.after !== undefined && <span aria-hidden="true"> → </span>}
                {change.after !== undefined && (
                  <ins>
                    <span className="console-visually-hidden">{t('audit.after')} </span>
                    {shown(change.after)}
                  </ins>
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
}
