import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { admin, formatTime } from '../api';
import { Loading } from '../Loading';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';

/** One user as support sees them (GET /api/admin/users/:id): wallet, ledger, unlocks, VIP, sessions; grants and sign-out-everywhere. */
export default function UserPage() {
  const { t } = useConsoleI18n();
  const { id } = useParams();
  const navigate = useNavigate();
  const open = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const next = String(new FormData(event.currentTarget).get('id') ?? '').trim();
    if (next) navigate(`/admin/users/${encodeURIComponent(next)}`);
  };
  return (
    <section aria-labelledby="user-title">
      <form className="console-filters" onSubmit={open}>
        <label>
          {t('user.lookup')}
          <input name="id" type="search" defaultValue={id ?? ''} />
        </label>
        <button type="submit" className="console-button">
          {t('user.open')}
        </button>
      </form>
      {id ? <UserDetail id={id} /> : <h1 id="user-title">{t('user.lookup')}</h1>}
    </section>
  );
}

function UserDetail({ id }: { id: string }) {
  const { t, locale } = useConsoleI18n();
  const queryClient = useQueryClient();
  const user = useQuery({ queryKey: ['admin', 'user', id], queryFn: () => admin.user(id) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'user', id] });
  const revoke = useMutation({ mutationFn: () => admin.revokeSessions(id), onSuccess: refresh });
  const [grantProblem, setGrantProblem] = useState(false);
  const grant = useMutation({ mutationFn: (body: { coins?: number; vipDays?: number; reason: string }) => admin.grant(id, body), onSuccess: refresh });

  const submitGrant = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const whole = (name: string) => {
      const value = Number(String(form.get(name) ?? '').trim() || NaN);
      return Number.isInteger(value) && value > 0 ? value : undefined;
    };
    const coins = whole('coins');
    const vipDays = whole('vipDays');
    const reason = String(form.get('reason') ?? '').trim();
    if ((!coins && !vipDays) || !reason) return setGrantProblem(true);
    setGrantProblem(false);
    grant.mutate({ ...(coins ? { coins } : {}), ...(vipDays ? { vipDays } : {}), reason });
  };

  if (user.isPending) return <Loading />;
  if (user.isError) return <ErrorState error={user.error} onRetry={() => void user.refetch()} />;
  const { wallet, subscription, sessions } = user.data;
  return (
    <>
      <h1 id="user-title">{t('user.title', { id: user.data.email ?? user.data.id })}</h1>
      <dl className="console-facts">
        <dt>{t('user.role')}</dt>
        <dd>{user.data.role}</dd>
        <dt>{t('user.balance')}</dt>
        <dd>{wallet?.balance ?? '—'}</dd>
        <dt>{t('user.paid')}</dt>
        <dd>{wallet?.paidCoins ?? '—'}</dd>
        <dt>{t('user.bonus')}</dt>
        <dd>{wallet?.bonusCoins ?? '—'}</dd>
        <dt>{t('user.subscription')}</dt>
        <dd>
          {subscription
            ? `${subscription.planId} · ${t(subscription.cancelAtPeriodEnd ? 'user.ends' : 'user.renews', { date: formatTime(subscription.renewsAt, locale) })}`
            : t('user.noSubscription')}
        </dd>
      </dl>
      <div className="console-columns">
        <section aria-labelledby="ledger-title">
          <h2 id="ledger-title">{t('user.ledger')}</h2>
          {wallet?.ledger?.items.length ? (
            <ul className="console-list">
              {wallet.ledger.items.map((entry, index) => (
                <li key={entry.id ?? index}>
                  {formatTime(entry.createdAt, locale)} · {entry.delta ?? entry.coins} · {entry.reason ?? entry.kind ?? entry.reference ?? ''}
                </li>
              ))}
            </ul>
          ) : (
            <p className="console-muted">{t('empty')}</p>
          )}
          <h2>{t('user.unlocks')}</h2>
          {wallet?.unlocks?.length ? (
            <ul className="console-list">
              {wallet.unlocks.map((unlock, index) => (
                <li key={`${unlock.episodeId ?? index}`}>
                  <code>{unlock.episodeId ?? unlock.videoId}</code> · {formatTime(unlock.unlockedAt, locale)}
                </li>
              ))}
            </ul>
          ) : (
            <p className="console-muted">{t('empty')}</p>
          )}
        </section>
        <section aria-labelledby="sessions-title">
          <h2 id="sessions-title">{t('user.sessions')}</h2>
          {sessions.length ? (
            <ul className="console-list">
              {sessions.map((session, index) => (
                <li key={index}>
                  {t('user.sessionCreated')} {formatTime(session.createdAt, locale)} · {t('user.sessionUsed')} {formatTime(session.lastUsedAt, locale)}
                </li>
              ))}
            </ul>
          ) : (
            <p className="console-muted">{t('empty')}</p>
          )}
          <button type="button" className="console-button console-button--danger" disabled={revoke.isPending} onClick={() => revoke.mutate()}>
            {t('user.revoke')}
          </button>
          {revoke.isSuccess && <p role="status">{t('user.revoked', { count: revoke.data.revoked })}</p>}
          {revoke.isError && <ErrorState error={revoke.error} />}
          <h2>{t('user.grant')}</h2>
          <form className="console-form" onSubmit={submitGrant} noValidate>
            <label>
              {t('user.coins')}
              <input name="coins" inputMode="numeric" />
            </label>
            <label>
              {t('user.vipDays')}
              <input name="vipDays" inputMode="numeric" />
            </label>
            <label>
              {t('user.grantReason')}
              <input name="reason" />
            </label>
            {grantProblem && (
              <p role="alert" className="console-error-text">
                {t('user.grantInvalid')}
              </p>
            )}
            <button type="submit" className="console-button console-button--primary" disabled={grant.isPending}>
              {t('user.grantSubmit')}
            </button>
          </form>
          {grant.isSuccess && <p role="status">{t('user.granted')}</p>}
          {grant.isError && <ErrorState error={grant.error} />}
        </section>
      </div>
    </>
  );
}
