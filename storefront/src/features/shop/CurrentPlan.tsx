import { useState } from 'react';
import { ApiError } from '../../api/client';
import type { Vip } from '../../api/types';
import { CrownIcon } from '../../components/Icons';
import { useT } from '../../i18n/I18nProvider';
import { formatDate } from '../../lib/format';
import { useCancelSubscription, useResumeSubscription } from './queries';

interface CurrentPlanProps {
  vip: Vip;
  /** The plan's title from /api/plan, when it is still listed. */
  planTitle?: string;
}

/**
 * The VIP plan this account has: its renewal date, cancel (after a confirm step; access lasts until
 * the renewal date) and, once canceled, resume until that date.
 */
export function CurrentPlan({ vip, planTitle }: CurrentPlanProps) {
  const t = useT();
  const cancel = useCancelSubscription();
  const resume = useResumeSubscription();
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const date = formatDate(vip.renewsAt);
  const failed = cancel.error ?? resume.error;
  const busy = cancel.isPending || resume.isPending;

  const confirmCancel = () => {
    resume.reset();
    cancel.mutate(undefined, {
      onSuccess: (subscription) => {
        setConfirming(false);
        setDone(t('shop.canceledNotice', { date: formatDate(subscription.renewsAt) }));
      },
    });
  };
  const resumeNow = () => {
    cancel.reset();
    resume.mutate(undefined, { onSuccess: (subscription) => setDone(t('shop.resumedNotice', { date: formatDate(subscription.renewsAt) })) });
  };

  return (
    <section className="current-plan" aria-labelledby="current-plan-title">
      <h2 id="current-plan-title" className="section-title">
        <CrownIcon size={18} /> {t('shop.currentPlan')}
      </h2>
      <p className="current-plan__name">
        <span className="badge badge--vip">{t('account.planVip')}</span> {planTitle}
      </p>
      <p className="current-plan__date">{t(vip.cancelAtPeriodEnd ? 'shop.accessUntil' : 'account.renews', { date })}</p>
      {done && (
        <p className="notice notice--success" role="status">
          {done}
        </p>
      )}
      {failed && (
        <p className="notice notice--error" role="alert">
          {failed instanceof ApiError && failed.message ? failed.message : t('common.unknownError')}
        </p>
      )}
      {vip.cancelAtPeriodEnd ? (
        <div className="current-plan__actions">
          <button type="button" className="button button--vip" disabled={busy} onClick={resumeNow}>
            {t('shop.resume')}
          </button>
          <p className="plan__terms">{t('shop.resumeHint', { date })}</p>
        </div>
      ) : confirming ? (
        <div className="current-plan__confirm" role="group" aria-labelledby="cancel-question">
          <p id="cancel-question">{t('shop.cancelQuestion', { date })}</p>
          <div className="current-plan__actions">
            <button type="button" className="button button--ghost" disabled={busy} onClick={confirmCancel}>
              {t('shop.confirmCancel')}
            </button>
            <button type="button" className="button button--vip" disabled={busy} onClick={() => setConfirming(false)}>
              {t('shop.keepVip')}
            </button>
          </div>
        </div>
      ) : (
        <div className="current-plan__actions">
          <button
            type="button"
            className="button button--ghost"
            onClick={() => {
              setDone(null);
              setConfirming(true);
            }}
          >
            {t('account.cancel')}
          </button>
        </div>
      )}
    </section>
  );
}
