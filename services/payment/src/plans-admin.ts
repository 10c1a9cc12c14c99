import { auditAdminCall, Conflict, Invalid, NotFound, type AdminCall, type Database, type Executor } from '@cliffhanger/platform';
import { paymentRepository as repo, type PlanChanges, type PlanRow } from './repository.ts';
import type { PlanKind } from './schema.ts';
import { adminPlanView, type AdminPlan } from './views.ts';

/** An operator's change to a plan: any of these fields, checked against the plan's kind. */
export interface PlanUpdate {
  title?: string;
  priceAmount?: number;
  coins?: number;
  bonusCoins?: number;
  periodDays?: number;
  active?: boolean;
  position?: number;
}

/** A new plan: a coin pack (coins, bonus coins) or a VIP period (days, and months for calendar billing). */
export interface NewPlan {
  id: string;
  kind: PlanKind;
  title: string;
  priceAmount: number;
  coins?: number;
  bonusCoins?: number;
  periodDays?: number;
  periodMonths?: number;
  active?: boolean;
  position?: number;
}

interface PlansAdminDeps {
  database: Database;
  now: () => Date;
}

function refuseWrongKind(kind: PlanKind, fields: { coins?: number; bonusCoins?: number; periodDays?: number; periodMonths?: number }): void {
  const wrong: Record<string, string> = {};
  if (kind === 'vip') {
    if (fields.coins !== undefined) wrong.coins = 'A VIP plan has no coins';
    if (fields.bonusCoins !== undefined) wrong.bonusCoins = 'A VIP plan has no bonus coins';
  } else {
    if (fields.periodDays !== undefined) wrong.periodDays = 'A coin pack has no period';
    if (fields.periodMonths !== undefined) wrong.periodMonths = 'A coin pack has no period';
    if (fields.coins === 0) wrong.coins = 'A coin pack needs at least 1 coin';
  }
  if (Object.keys(wrong).length) throw new Invalid(wrong);
}

/**
 * Plans as operators change them: each change under the plan's row lock and audited in its
 * transaction. Orders already placed keep the terms they copied; a retired plan is sold no more,
 * but live subscriptions renew on it (the renewal reads the plan whatever its state).
 */
export function createPlansAdmin({ database, now }: PlansAdminDeps) {
  async function changePlan(by: AdminCall, id: string, action: string, change: (tx: Executor, plan: PlanRow) => PlanChanges): Promise<AdminPlan> {
    return database.transaction(async (tx) => {
      const plan = await repo.lockPlan(tx, id);
      if (!plan) throw new NotFound('No such plan');
      const changed = (await repo.updatePlan(tx, id, change(tx, plan), now()))!;
      const after = adminPlanView(changed);
      await auditAdminCall(tx, by, { action, target: `plan:${id}`, before: adminPlanView(plan), after });
      return after;
    });
  }

  return {
    updatePlan: (id: string, update: PlanUpdate, by: AdminCall) =>
      changePlan(by, id, 'plan.update', (_tx, plan) => {
        refuseWrongKind(plan.kind, update);
        if (plan.retiredAt && update.active) throw new Conflict('This plan is retired: make a new one instead');
        return Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined));
      }),

    retirePlan: (id: string, by: AdminCall) =>
      changePlan(by, id, 'plan.retire', (_tx, plan) => {
        if (plan.retiredAt) throw new Conflict('This plan is retired already');
        return { active: false, retiredAt: now() };
      }),

    async createPlan(plan: NewPlan, by: AdminCall): Promise<AdminPlan> {
      refuseWrongKind(plan.kind, plan);
      if (plan.kind === 'coins' && plan.coins === undefined) throw new Invalid({ coins: 'A coin pack needs its coins' });
      // periodDays is a VIP plan's length (the database's rule); periodMonths adds calendar billing on top.
      if (plan.kind === 'vip' && plan.periodDays === undefined) throw new Invalid({ periodDays: 'A VIP plan needs its period in days' });
      return database.transaction(async (tx) => {
        const row = await repo.insertPlan(tx, {
          id: plan.id,
          kind: plan.kind,
          title: plan.title,
          priceAmount: plan.priceAmount,
          currency: 'USD',
          coins: plan.kind === 'coins' ? plan.coins! : null,
          bonusCoins: plan.kind === 'coins' ? (plan.bonusCoins ?? 0) : null,
          periodDays: plan.periodDays ?? null,
          periodMonths: plan.periodMonths ?? null,
          firstPurchaseOnly: false,
          active: plan.active ?? true,
          position: plan.position ?? 100,
          updatedAt: now(),
        });
        if (!row) throw new Conflict('A plan with this id exists already');
        const created = adminPlanView(row);
        await auditAdminCall(tx, by, { action: 'plan.create', target: `plan:${plan.id}`, before: null, after: created });
        return created;
      });
    },
  };
}
