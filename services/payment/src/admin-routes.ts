import { Router } from 'express';
import { z } from 'zod';
import { adminCallOf, ok, pagingSchema, parseInput, requireRole, requiredText } from '@cliffhanger/platform';
import { orderStatuses, planKinds } from './schema.ts';
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
const refundBody = z.object({
  amount: count('The amount').min(1, 'The amount must be at least 1 cent').optional(),
  reason: requiredText('Please say why', 500),
});

const newPlanBody = z
  .object({
    id: requiredText('Please enter an id', 60).regex(/^[a-z0-9][a-z0-9-]*$/, 'An id is lower-case letters, digits and dashes'),
    kind: z.enum(planKinds, { message: 'kind must be coins or vip' }),
    title: requiredText('Please enter a title', 100),
    price: z.object(
      {
        amount: count('The price').min(50, 'The price must be at least 50 cents').max(100_000_00, 'The price must be at most $100,000'),
        currency: z.literal('USD', 'Prices are in USD').optional(),
      },
      { message: 'Please enter a price' },
    ),
    coins: count('Coins').min(1, 'A coin pack needs at least 1 coin').max(1_000_000).optional(),
    bonusCoins: count('Bonus coins').min(0).max(1_000_000).optional(),
    periodDays: count('The period').min(1, 'The period must be at least 1 day').max(3660).optional(),
    periodMonths: count('The period').min(1, 'The period must be at least 1 month').max(120).optional(),
    active: z.boolean({ message: 'active must be true or false' }).optional(),
    position: count('The position').min(0).max(10_000).optional(),
  })
  .strict();
const instant = (name: string) =>
  z.iso.datetime({ offset: true, message: `${name} must be a time like 2026-01-31T00:00:00Z` }).transform((value) => new Date(value)).optional();
const ordersQuery = pagingSchema.extend({
  email: z.string().trim().min(1).max(254).optional(),
  orderId: z.string().trim().min(1).max(100).optional(),
  status: z.enum(orderStatuses, { message: `status must be one of ${orderStatuses.join(', ')}` }).optional(),
  from: instant('from'),
  to: instant('to'),
});

const userBody = z.object({ userId: requiredText('Please choose a user', 100) });

/**
 * The operators' calls of docs/api.md ("Admin"): operators read plans and orders; money and plans
 * (refunds, plan changes) are an admin's. With the sandbox provider only,
 * the test hook that renews one subscription now (`sandbox`), which would charge real cards early.
 */
export function paymentAdminRoutes(payments: PaymentService, adminToken: string | undefined, options: { sandbox?: boolean } = {}): Router {
  const router = Router();
  router.use(['/api/admin/plans', '/api/admin/orders', '/api/admin/subscriptions'], requireRole(adminToken, 'operator'));
  const adminOnly = requireRole(adminToken, 'admin');

  if (options.sandbox) {
    router.post('/api/admin/subscriptions/renew', adminOnly, async (req, res) => {
      res.json(ok(await payments.renewEarly(parseInput(userBody, req.body).userId)));
    });
  }

  router.get('/api/admin/plans', async (_req, res) => {
    res.json(ok(await payments.adminPlans()));
  });

  router.post('/api/admin/plans', adminOnly, async (req, res) => {
    const { price, ...rest } = parseInput(newPlanBody, req.body);
    res.json(ok(await payments.createPlan({ ...rest, priceAmount: price.amount }, adminCallOf(req))));
  });

  router.put('/api/admin/plans/:id', adminOnly, async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    const { price, ...rest } = parseInput(planBody, req.body);
    res.json(ok(await payments.updatePlan(id, { ...rest, priceAmount: price?.amount }, adminCallOf(req))));
  });

  router.post('/api/admin/plans/:id/retire', adminOnly, async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    res.json(ok(await payments.retirePlan(id, adminCallOf(req))));
  });

  router.get('/api/admin/orders', async (req, res) => {
    const { page, size, ...filter } = parseInput(ordersQuery, req.query);
    res.json(ok(await payments.findOrders(filter, page, size)));
  });

  router.post('/api/admin/orders/:id/refund', adminOnly, async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    const { amount, reason } = parseInput(refundBody, req.body);
    res.json(ok(await payments.refundOrder(id, amount ?? null, reason, adminCallOf(req))));
  });

  return router;
}
