import { Router } from 'express';
import { z } from 'zod';
import { ok, parseInput, requireAdmin, requiredText } from '@cliffhanger/platform';
import type { PaymentService } from './service.ts';

const count = (what: string) => z.number({ message: `${what} must be a whole number` }).int(`${what} must be a whole number`);

const planBody = z
  .object({
    title: requiredText('Please enter a title', 100).optional(),
    // Stripe takes no card payment under 50 cents.
    price: z
      .object({
        amount: count('The price').min(50, 'The price must be at least 50 cents').max(100_000_00, 'The price must be at most $100,000'),
        currency: z.literal('USD', 'Prices are in USD').optional(),
      })
      .optional(),
    coins: count('Coins').min(0).max(1_000_000).optional(),
    bonusCoins: count('Bonus coins').min(0).max(1_000_000).optional(),
    periodDays: count('The period').min(1, 'The period must be at least 1 day').max(3660).optional(),
    active: z.boolean({ message: 'active must be true or false' }).optional(),
    position: count('The position').min(0).max(10_000).optional(),
  })
  .strict();
const idParam = z.object({ id: requiredText('Please choose one', 100) });
const refundBody = z.object({ reason: z.string().trim().max(500).optional() });

/** The operator's calls of docs/api.md ("Admin"): plans and refunds. */
export function paymentAdminRoutes(payments: PaymentService, adminToken: string | undefined): Router {
  const router = Router();
  router.use(['/api/admin/plans', '/api/admin/orders'], requireAdmin(adminToken));

  router.get('/api/admin/plans', async (_req, res) => {
    res.json(ok(await payments.adminPlans()));
  });

  router.put('/api/admin/plans/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    const { price, ...rest } = parseInput(planBody, req.body);
    res.json(ok(await payments.updatePlan(id, { ...rest, priceAmount: price?.amount })));
  });

  router.post('/api/admin/orders/:id/refund', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    const { reason } = parseInput(refundBody, req.body);
    res.json(ok(await payments.refundOrder(id, reason || null)));
  });

  return router;
}
