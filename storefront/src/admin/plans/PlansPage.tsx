import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { admin, formatMoney, formatTime, type AdminPlan, type NewPlan, type PlanFields } from '../api';
import { Dialog } from '../Dialog';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';
import { QueryStates } from '../QueryStates';
import { useMayAct } from '../role';
import { PlanForm } from './PlanForm';

type Editing = { plan?: AdminPlan } | null;

/**
 * The plans for sale (GET /api/admin/plans): coin packs and VIP periods, hidden and retired ones
 * too. An admin creates, edits and retires them; an operator reads them (the API refuses the rest).
 */
export default function PlansPage() {
  const { t, locale } = useConsoleI18n();
  const queryClient = useQueryClient();
  const mayChange = useMayAct('admin');
  const plans = useQuery({ queryKey: ['admin', 'plans'], queryFn: admin.plans });
  const [editing, setEditing] = useState<Editing>(null);
  const [retiring, setRetiring] = useState<AdminPlan | null>(null);
  const [done, setDone] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'plans'] });

  const save = useMutation({
    mutationFn: (change: { create: NewPlan } | { id: string; changes: Partial<PlanFields> }) =>
      'create' in change ? admin.createPlan(change.create) : admin.updatePlan(change.id, change.changes),
    onSuccess: (plan, change) => {
      setEditing(null);
      setDone(t('create' in change ? 'plans.created' : 'plans.saved', { id: plan.id }));
      void refresh();
    },
  });
  const retire = useMutation({
    mutationFn: (id: string) => admin.retirePlan(id),
    onSuccess: (plan) => {
      setRetiring(null);
      setDone(t('plans.retired', { id: plan.id }));
      void refresh();
    },
  });
  const open = (next: Editing) => {
    save.reset();
    setDone('');
    setEditing(next);
  };

  const stateOf = (plan: AdminPlan) =>
    plan.retiredAt ? t('plans.retiredOn', { date: formatTime(plan.retiredAt, locale) }) : plan.active ? t('plans.onSale') : t('plans.notOnSale');
  const termsOf = (plan: AdminPlan) =>
    plan.kind === 'coins'
      ? t('plans.coinTerms', { coins: plan.coins ?? 0, bonus: plan.bonusCoins ?? 0 })
      : plan.periodMonths
        ? t('plans.monthTerms', { months: plan.periodMonths })
        : t('plans.dayTerms', { days: plan.periodDays ?? 0 });

  return (
    <section aria-labelledby="plans-title">
      <h1 id="plans-title">{t('plans.title')}</h1>
      {mayChange ? (
        <button type="button" className="console-button console-button--primary" onClick={() => open({})}>
          {t('plans.new')}
        </button>
      ) : (
        <p className="console-muted">{t('plans.readOnly')}</p>
      )}
      <p role="status" className="console-success">
        {done}
      </p>
      <QueryStates query={plans} empty={t('plans.none')}>
        {(data) => (
          <div className="console-table-wrap">
            <table className="console-table console-table--cards" aria-labelledby="plans-title">
              <thead>
                <tr>
                  <th scope="col">{t('plans.id')}</th>
                  <th scope="col">{t('content.fieldTitle')}</th>
                  <th scope="col">{t('plans.kind')}</th>
                  <th scope="col">{t('orders.price')}</th>
                  <th scope="col">{t('plans.terms')}</th>
                  <th scope="col">{t('plans.position')}</th>
                  <th scope="col">{t('plans.state')}</th>
                  {mayChange && (
                    <th scope="col">
                      <span className="console-visually-hidden">{t('plans.actions')}</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {data.map((plan) => (
                  <tr key={plan.id}>
                    <td data-label={t('plans.id')}>
                      <code>{plan.id}</code>
                    </td>
                    <td data-label={t('content.fieldTitle')}>{plan.title}</td>
                    <td data-label={t('plans.kind')}>{t(plan.kind === 'coins' ? 'plans.kind.coins' : 'plans.kind.vip')}</td>
                    <td data-label={t('orders.price')}>{formatMoney(plan.price, locale)}</td>
                    <td data-label={t('plans.terms')}>{termsOf(plan)}</td>
                    <td data-label={t('plans.position')}>{plan.position}</td>
                    <td data-label={t('plans.state')}>{stateOf(plan)}</td>
                    {mayChange && (
                      <td data-label={t('plans.actions')}>
                        {!plan.retiredAt && (
                          <span className="console-order">
                            <button type="button" className="console-button" aria-label={t('plans.editOf', { id: plan.id })} onClick={() => open({ plan })}>
                              {t('plans.edit')}
                            </button>
                            <button
                              type="button"
                              className="console-button console-button--danger"
                              aria-label={t('plans.retireOf', { id: plan.id })}
                              onClick={() => {
                                retire.reset();
                                setRetiring(plan);
                              }}
                            >
                              {t('plans.retire')}
                            </button>
                          </span>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {editing && (
        <Dialog title={editing.plan ? t('plans.editOf', { id: editing.plan.id }) : t('plans.new')} onClose={() => setEditing(null)}>
          <PlanForm
            plan={editing.plan}
            pending={save.isPending}
            error={save.error}
            onCreate={(plan) => save.mutate({ create: plan })}
            onUpdate={(changes) => (Object.keys(changes).length ? save.mutate({ id: editing.plan!.id, changes }) : setEditing(null))}
          />
          <div className="console-actions">
            <button type="button" className="console-button" onClick={() => setEditing(null)}>
              {t('refund.cancel')}
            </button>
          </div>
        </Dialog>
      )}
      {retiring && (
        <Dialog title={t('plans.retireTitle', { id: retiring.id })} onClose={() => setRetiring(null)}>
          <p>{t('plans.retireBody')}</p>
          {retire.isError && <ErrorState error={retire.error} />}
          <div className="console-actions">
            <button type="button" className="console-button" onClick={() => setRetiring(null)}>
              {t('refund.cancel')}
            </button>
            <button type="button" className="console-button console-button--danger" disabled={retire.isPending} onClick={() => retire.mutate(retiring.id)}>
              {t('plans.retireConfirm', { id: retiring.id })}
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
