import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { STAFF_ROLES, admin, formatTime, type AdminUser, type Role, type StaffRole } from '../api';
import { Dialog } from '../Dialog';
import { ErrorState } from '../ErrorState';
import { Paging } from '../Paging';
import { useConsoleI18n } from '../i18n';
import { QueryStates } from '../QueryStates';
import type { ConsoleKey } from '../texts';

const PAGE_SIZE = 20;
const roleName = (role: Role): ConsoleKey => `people.role.${role}`;

/** The member with exactly this email (any case), found through GET /api/admin/users?query=, or null. */
async function memberByEmail(email: string): Promise<AdminUser | null> {
  const found = await admin.users({ query: email }, 1, 50);
  return found.items.find((user) => user.kind === 'member' && user.email?.toLowerCase() === email.toLowerCase()) ?? null;
}

/**
 * Who runs the site (admin only): the role given to a member by email, and who holds each role,
 * taken away after a confirmation (PUT /api/admin/users/:id/role). A change shows at the member's
 * next call within seconds.
 */
export default function PeoplePage() {
  const { t } = useConsoleI18n();
  const queryClient = useQueryClient();
  const formId = useId();
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  const [revoking, setRevoking] = useState<AdminUser | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'people'] });

  const grant = useMutation({
    mutationFn: async ({ email, role }: { email: string; role: StaffRole }) => {
      const member = await memberByEmail(email);
      if (!member) return null;
      return admin.setRole(member.id, role);
    },
    onSuccess: (changed, { email, role }) => {
      if (!changed) return setProblem(t('people.noMember', { email }));
      setDone(t('people.granted', { email, role: t(roleName(role)) }));
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (user: AdminUser) => admin.setRole(user.id, 'viewer'),
    onSuccess: (changed) => {
      setRevoking(null);
      setDone(t('people.revoked', { email: changed.email ?? changed.id }));
      void refresh();
    },
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email') ?? '').trim();
    const role = String(form.get('role')) as StaffRole;
    setDone('');
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) return setProblem(t('people.emailInvalid'));
    setProblem('');
    grant.mutate({ email, role });
  };

  return (
    <section aria-labelledby="people-title">
      <h1 id="people-title">{t('people.title')}</h1>
      <p className="console-muted">{t('people.intro')}</p>
      <h2 id={`${formId}-grant`}>{t('people.grant')}</h2>
      <form className="console-filters" aria-labelledby={`${formId}-grant`} onSubmit={submit} noValidate>
        <label>
          {t('signIn.email')}
          <input name="email" type="email" autoComplete="off" required aria-invalid={Boolean(problem)} aria-describedby={problem ? `${formId}-problem` : undefined} />
        </label>
        <label>
          {t('user.role')}
          <select name="role" defaultValue="operator">
            {STAFF_ROLES.map((role) => (
              <option key={role} value={role}>
                {t(roleName(role))}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="console-button console-button--primary" disabled={grant.isPending}>
          {t('people.grantSubmit')}
        </button>
      </form>
      {problem && (
        <p id={`${formId}-problem`} className="console-error-text">
          {problem}
        </p>
      )}
      {grant.isError && <ErrorState error={grant.error} />}
      <p role="status" className="console-success">
        {done}
      </p>
      {[...STAFF_ROLES].reverse().map((role) => (
        <RoleHolders
          key={role}
          role={role}
          onRevoke={(user) => {
            revoke.reset();
            setRevoking(user);
          }}
        />
      ))}
      {revoking && (
        <Dialog title={t('people.revokeTitle', { email: revoking.email ?? revoking.id, role: t(roleName(revoking.role)) })} onClose={() => setRevoking(null)}>
          <p>{t('people.revokeBody')}</p>
          {revoke.isError && <ErrorState error={revoke.error} />}
          <div className="console-actions">
            <button type="button" className="console-button" onClick={() => setRevoking(null)}>
              {t('refund.cancel')}
            </button>
            <button type="button" className="console-button console-button--danger" disabled={revoke.isPending} onClick={() => revoke.mutate(revoking)}>
              {t('people.revokeConfirm')}
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

/** The members holding `role` (GET /api/admin/users?role=), newest first, in pages. */
function RoleHolders({ role, onRevoke }: { role: StaffRole; onRevoke: (user: AdminUser) => void }) {
  const { t, locale } = useConsoleI18n();
  const [page, setPage] = useState(1);
  const holders = useQuery({
    queryKey: ['admin', 'people', role, page],
    queryFn: () => admin.users({ role }, page, PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  const titleId = `people-${role}`;
  return (
    <section aria-labelledby={titleId}>
      <h2 id={titleId}>{t(role === 'admin' ? 'people.admins' : 'people.operators')}</h2>
      <QueryStates query={holders} empty={t('people.none')}>
        {(data) => (
          <ul className="console-list console-people">
            {data.items.map((user) => (
              <li key={user.id}>
                <Link to={`/admin/users/${encodeURIComponent(user.id)}`}>{user.email ?? user.id}</Link>
                <span className="console-muted"> · {t('people.since', { date: formatTime(user.registeredAt ?? user.createdAt, locale) })}</span>
                <button type="button" className="console-button" aria-label={t('people.revokeOf', { email: user.email ?? user.id, role: t(roleName(role)) })} onClick={() => onRevoke(user)}>
                  {t('people.revoke')}
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryStates>
      {holders.data && (holders.data.hasMore || page > 1) && <Paging page={page} hasMore={holders.data.hasMore} onPage={setPage} />}
    </section>
  );
}
