import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { admin, formatMoney, formatTime, type AdminOrder, type RefundAnswer } from '../api';
import { Dialog } from '../Dialog';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';
import type { ConsoleKey } from '../texts';

const REFUNDABLE = new Set(['succeeded', 'partially_refunded']);

/** An order's payments and refunds, and the refund form: whole or part, a reason, then a confirmation. */
export function OrderDetails({ order, onClose }: { order: AdminOrder; onClose: () => void }) {
  const { t, locale } = useConsoleI18n();
  const queryClient = useQueryClient();
  const left = order.price.amount - (order.refunded?.amount ?? 0);
  const [whole, setWhole] = useState(true);
  const [amountText, setAmountText] = useState('');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<ConsoleKey | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const refund = useMutation({
    mutationFn: (amount: number) => admin.refund(order.id, { ...(whole ? {} : { amount }), reason: reason.trim() }),
    onSuccess: () => {
      setConfirming(null);
      void queryClient.invalidateQueries({ queryKey: ['admin', 'orders'] });
    },
  });

  const review = (event: FormEvent) => {
    event.preventDefault();
    const amount = whole ? left : Math.round(Number(amountText.replace(',', '.')) * 100);
    if (!reason.trim()) return setProblem('refund.reasonRequired');
    if (!Number.isFinite(amount) || amount < 1 || amount > left) return setProblem('refund.amountInvalid');
    setProblem(null);
    setConfirming(amount);
  };

  const done: RefundAnswer | undefined = refund.data;
  const reversed = done?.reversed ?? done;
  const money = (amount: number) => formatMoney({ amount, currency: order.price.currency }, locale);
  return (
    <Dialog title={t('orders.detailsOf', { id: order.id })} onClose={onClose}>
      <dl className="console-facts">
        <dt>{t('orders.status')}</dt>
        <dd>{t(`status.${done?.status ?? order.status}` as ConsoleKey)}</dd>
        <dt>{t('orders.buyer')}</dt>
        <dd>
          <Link to={`/admin/users/${encodeURIComponent(order.user.id)}`} onClick={onClose}>
            {order.user.email ?? order.user.id}
          </Link>
        </dd>
        <dt>{t('orders.plan')}</dt>
        <dd>{order.title ?? order.planId}</dd>
        <dt>{t('orders.price')}</dt>
        <dd>{formatMoney(order.price, locale)}</dd>
        <dt>{t('orders.refunded')}</dt>
        <dd>{formatMoney(done?.refunded ?? order.refunded, locale)}</dd>
        <dt>{t('orders.created')}</dt>
        <dd>{formatTime(order.createdAt, locale)}</dd>
      </dl>
      {order.payments.length > 0 && (
        <>
          <h3>{t('orders.payments')}</h3>
          <ul className="console-list">
            {order.payments.map((payment) => (
              <li key={payment.id}>
                <code>{payment.id}</code> · {payment.status} · {formatTime(payment.succeededAt, locale)}
                {payment.failureReason ? ` · ${payment.failureReason}` : ''}
              </li>
            ))}
          </ul>
        </>
      )}
      {order.refunds.length > 0 && (
        <>
          <h3>{t('orders.refunds')}</h3>
          <ul className="console-list">
            {order.refunds.map((item) => (
              <li key={item.id}>
                {formatMoney(item.amount, locale)} · {item.status} · {formatTime(item.createdAt, locale)}
                {item.reason ? ` · ${item.reason}` : ''}
              </li>
            ))}
          </ul>
        </>
      )}
      {done ? (
        <p role="status" className="console-success">
          {t('refund.done', {
            coins: reversed?.coinsTaken ?? 0,
            unlocks: reversed?.unlocksRevoked ?? 0,
            vip: reversed?.vipEnded ? t('yes') : t('no'),
          })}
        </p>
      ) : (
        REFUNDABLE.has(order.status) &&
        left > 0 && (
          <form className="console-form" onSubmit={review} noValidate>
            <fieldset>
              <legend>{t('refund.title')}</legend>
              <label className="console-inline">
                <input type="radio" name="extent" checked={whole} onChange={() => setWhole(true)} /> {t('refund.whole')} ({money(left)})
              </label>
              <label className="console-inline">
                <input type="radio" name="extent" checked={!whole} onChange={() => setWhole(false)} /> {t('refund.partial')}
              </label>
              {!whole && (
                <label>
                  {t('refund.amount', { currency: order.price.currency })}
                  <input inputMode="decimal" value={amountText} onChange={(event) => setAmountText(event.target.value)} />
                </label>
              )}
              <label>
                {t('refund.reason')}
                <textarea value={reason} onChange={(event) => setReason(event.target.value)} rows={2} maxLength={500} required />
              </label>
            </fieldset>
            {problem && (
              <p role="alert" className="console-error-text">
                {t(problem)}
              </p>
            )}
            <button type="submit" className="console-button console-button--danger">
              {t('refund.review')}
            </button>
          </form>
        )
      )}
      {refund.isError && <ErrorState error={refund.error} />}
      <div className="console-actions">
        <button type="button" className="console-button" onClick={onClose}>
          {t('close')}
        </button>
      </div>
      {confirming !== null && (
        <Dialog title={t('refund.confirmTitle', { amount: money(confirming), id: order.id })} onClose={() => setConfirming(null)}>
          <p>{t('refund.confirmBody')}</p>
          <div className="console-actions">
            <button type="button" className="console-button" onClick={() => setConfirming(null)}>
              {t('refund.cancel')}
            </button>
            <button type="button" className="console-button console-button--danger" disabled={refund.isPending} onClick={() => refund.mutate(confirming)}>
              {t('refund.confirm', { amount: money(confirming) })}
            </button>
          </div>
        </Dialog>
      )}
    </Dialog>
  );
}
