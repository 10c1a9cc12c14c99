import { randomUUID } from 'node:crypto';
import { appendEvent, auditAdminCall, type AdminCall } from '@cliffhanger/platform';
import { addDays } from './billing.ts';
import type { Core } from './core.ts';
import { paymentRepository as repo, type SubscriptionRow } from './repository.ts';
import type { Settlement } from './settlement.ts';
import { subscriptionView, type Subscription } from './views.ts';

/** The plan a VIP an operator started is on: free, never sold, never renewing (migrations/0010_vip_grants.sql). */
export const GRANTED_PLAN_ID = 'vip-granted';

export interface VipGrant {
  userId: string;
  days: number;
  reason: string;
}

export interface VipGranted {
  days: number;
  subscription: Subscription;
}

const vipOf = (sub: SubscriptionRow | null) => sub && { subscriptionId: sub.id, planId: sub.planId, status: sub.status, renewsAt: sub.renewsAt.toISOString() };

/**
 * VIP days an operator grants with a reason (POST /api/admin/users/:id/grants), in one transaction
 * under the user's subscription lock, with its event and its audit entry. A live VIP's renews_at
 * moves the days later, from now when that has passed (due, or past due in its grace): its next
 * charge, retry or end comes that much later, and a monthly or yearly plan renews on the new day of
 * the month from then on, so no paid period is shortened. With none live, a VIP of those days starts
 * on the free `vip-granted` plan, canceled at its period end from the start (it keeps no card): a
 * VIP bought meanwhile follows it, as one bought while subscribed does. A refund that ends a VIP ends
 * the days granted to it too.
 */
export function createVipGrants(core: Core, settlement: Settlement) {
  const { database, bus, now } = core;

  return {
    async grantVipDays(grant: VipGrant, by: AdminCall): Promise<VipGranted> {
      const at = now();
      const sub = await database.transaction(async (tx) => {
        await repo.lockSubscriptionsOf(tx, grant.userId);
        const live = await repo.liveSubscriptionOf(tx, grant.userId);
        let granted: SubscriptionRow;
        if (live) {
          const renewsAt = addDays(live.renewsAt > at ? live.renewsAt : at, grant.days);
          const billingDay = live.periodMonths ? renewsAt.getUTCDate() : live.billingDay;
          granted = (await repo.changeLiveSubscription(tx, live.id, { renewsAt: live.renewsAt }, { renewsAt, billingDay, updatedAt: at }))!;
        } else {
          granted = await repo.insertSubscription(tx, {
            id: randomUUID(),
            userId: grant.userId,
            planId: GRANTED_PLAN_ID,
            status: 'active',
            priceAmount: 0,
            currency: 'USD',
            periodDays: grant.days,
            periodMonths: null,
            billingDay: null,
            renewsAt: addDays(at, grant.days),
            cancelAtPeriodEnd: true,
            retryCount: 0,
            startedAt: at,
            updatedAt: at,
          });
        }
        const data = {
          subscriptionId: granted.id,
          planId: granted.planId,
          renewsAt: granted.renewsAt.toISOString(),
          cancelAtPeriodEnd: granted.cancelAtPeriodEnd,
          days: grant.days,
          started: !live,
        };
        await appendEvent(tx, by.context, 'subscription.granted', data, grant.userId);
        await auditAdminCall(tx, by, {
          action: 'user.grant',
          target: `user:${grant.userId}`,
          before: { vip: vipOf(live) },
          after: { vip: vipOf(granted), grantedVipDays: grant.days, reason: grant.reason },
        });
        return granted;
      });
      bus.nudge();
      await settlement.syncVipQuietly(grant.userId);
      return { days: grant.days, subscription: subscriptionView(sub) };
    },
  };
}
