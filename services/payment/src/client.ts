import { Router } from 'express';
import { z } from 'zod';
import { ok, parseInput, requiredText, type ServiceClient } from '@cliffhanger/platform';
import type { PaymentService } from './service.ts';
import type { Subscription } from './views.ts';

/** What other services ask the payment service. */
export interface PaymentClient {
  /** The user's latest subscription (live or ended), or null when they never had one. */
  subscriptionOf(userId: string): Promise<Subscription | null>;
}

export function paymentClientInProcess(payments: PaymentService): PaymentClient {
  return { subscriptionOf: payments.subscriptionOf };
}

const userQuery = z.object({ userId: requiredText('userId is required', 200) });

/** The payment service's internal endpoints, behind the INTERNAL_TOKEN check of the service process. */
export function paymentInternalRoutes(payments: PaymentService): Router {
  const router = Router();
  router.get('/internal/payment/subscription', async (req, res) => {
    res.json(ok(await payments.subscriptionOf(parseInput(userQuery, req.query).userId)));
  });
  return router;
}

/** The payment service over HTTP, for a process it does not run in. */
export function paymentClientOverHttp(http: ServiceClient): PaymentClient {
  return { subscriptionOf: (userId) => http.get('/internal/payment/subscription', { userId }) };
}
