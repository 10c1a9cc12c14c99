import { Router } from 'express';
import { z } from 'zod';
import { ok, parseInput, requiredText, roles, type AdminCall, type ServiceClient } from '@cliffhanger/platform';
import type { PaymentService } from './service.ts';
import type { VipGrant, VipGranted } from './vip-grants.ts';
import type { Subscription } from './views.ts';

/** What other services ask the payment service. */
export interface PaymentClient {
  /** The user's latest subscription (live or ended), or null when they never had one. */
  subscriptionOf(userId: string): Promise<Subscription | null>;
  /** An operator's grant of VIP days with its reason, audited (the admin API's grants). */
  grantVipDays(grant: VipGrant, by: AdminCall): Promise<VipGranted>;
}

export function paymentClientInProcess(payments: PaymentService): PaymentClient {
  return { subscriptionOf: payments.subscriptionOf, grantVipDays: payments.grantVipDays };
}

const userQuery = z.object({ userId: requiredText('userId is required', 200) });
const vipGrantBody = z.object({
  userId: requiredText('userId is required', 200),
  days: z.number().int().min(1).max(3660),
  reason: requiredText('reason is required', 500),
  caller: z.object({ actor: requiredText('actor is required', 200), role: z.enum(roles) }),
});

/** The payment service's internal endpoints, behind the INTERNAL_TOKEN check of the service process. */
export function paymentInternalRoutes(payments: PaymentService): Router {
  const router = Router();
  router.get('/internal/payment/subscription', async (req, res) => {
    res.json(ok(await payments.subscriptionOf(parseInput(userQuery, req.query).userId)));
  });
  router.post('/internal/payment/grant-vip-days', async (req, res) => {
    const { caller, ...grant } = parseInput(vipGrantBody, req.body);
    res.json(ok(await payments.grantVipDays(grant, { context: req.context, caller })));
  });
  return router;
}

/** The payment service over HTTP, for a process it does not run in. */
export function paymentClientOverHttp(http: ServiceClient): PaymentClient {
  return {
    subscriptionOf: (userId) => http.get('/internal/payment/subscription', { userId }),
    grantVipDays: (grant, { context, caller }: AdminCall) => http.post('/internal/payment/grant-vip-days', { ...grant, caller }, context),
  };
}
