import express, { Router, type Request } from 'express';
import { z } from 'zod';
import {
  failure,
  Invalid,
  ok,
  pagingSchema,
  parseInput,
  requiredText,
  requireUser,
} from '@cliffhanger/platform';
import { WebhookSignatureError, type PaymentSetup } from './providers/index.ts';
import { mailLanguageOf } from './mail-texts.ts';
import type { PaymentService } from './service.ts';

const orderBody = z.object({ planId: requiredText('Please choose a plan', 100) });
const orderIdBody = z.object({ orderId: requiredText('Please choose an order', 100) });
const payBody = z.object({
  orderId: requiredText('Please choose an order', 100),
  paymentToken: requiredText('Please enter your card details', 255),
  email: z.email('Please enter a valid email').max(254, 'Please enter a valid email'),
  firstName: requiredText('Please enter your first name', 100),
  lastName: requiredText('Please enter your last name', 100),
});
const idempotencyKey = z.object({
  key: z
    .string({ message: 'An Idempotency-Key header is required' })
    .min(8, 'The Idempotency-Key must be 8 to 200 characters')
    .max(200, 'The Idempotency-Key must be 8 to 200 characters'),
});
const methodBody = z.object({ paymentToken: requiredText('Please enter your card details', 255) });
const cancelQuery = z.object({ orderId: z.string().max(100).optional() });

function keyOf(req: Request): string {
  const parsed = idempotencyKey.safeParse({ key: req.get('idempotency-key') });
  if (!parsed.success) throw new Invalid({ 'Idempotency-Key': parsed.error.issues[0]!.message });
  return parsed.data.key;
}

/**
 * The bytes a webhook was signed over. The gateway's JSON parser keeps them as `rawBody` beside
 * the parsed body; a body no parser read yet arrives here as a Buffer from `express.raw`.
 */
function rawBodyOf(req: Request): Buffer | null {
  if (Buffer.isBuffer(req.body)) return req.body;
  const kept = (req as { rawBody?: unknown }).rawBody;
  return Buffer.isBuffer(kept) ? kept : null;
}

export interface PaymentRoutesOptions {
  publicUrl: string | undefined;
  /** What the card form tokenizes with: Stripe Elements' publishable key, or the sandbox tokenizer's address. */
  browser: PaymentSetup['browser'];
}

/** The payment calls of docs/api.md ("Money and unlocks") and the provider's webhook. */
export function paymentRoutes(payments: PaymentService, options: PaymentRoutesOptions): Router {
  const router = Router();
  // Where the provider sends the buyer back: the public URL, else the origin this call came to.
  const originOf = (req: Request) => options.publicUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`;

  router.get('/api/plan', async (req, res) => {
    res.json(ok(await payments.listPlans(req.context.userId)));
  });

  // Public by design: a publishable key and a tokenizer address are what any visitor's browser needs.
  router.get('/api/payment/config', (_req, res) => {
    res.json(ok(options.browser));
  });

  router.post('/api/payment/order', async (req, res) => {
    const userId = requireUser(req.context);
    res.json(ok(await payments.createOrder(req.context, userId, parseInput(orderBody, req.body).planId)));
  });

  router.post('/api/payment/pay', async (req, res) => {
    const userId = requireUser(req.context);
    const key = keyOf(req);
    const input = { ...parseInput(payBody, req.body), language: mailLanguageOf(req.get('accept-language')) };
    res.json(ok(await payments.pay(userId, input, { idempotencyKey: key, origin: originOf(req) })));
  });

  // After the page's 3-D Secure challenge (handleNextAction): the outcome now, not when the webhook comes.
  router.post('/api/payment/complete', async (req, res) => {
    const userId = requireUser(req.context);
    res.json(ok(await payments.completePayment(userId, parseInput(orderIdBody, req.body).orderId)));
  });

  router.post('/api/payment/paypal', async (req, res) => {
    const userId = requireUser(req.context);
    res.json(ok(await payments.startRedirect(userId, parseInput(orderIdBody, req.body).orderId, originOf(req))));
  });

  router.get('/api/payment', async (req, res) => {
    const userId = requireUser(req.context);
    const { page, size } = parseInput(pagingSchema, req.query);
    res.json(ok(await payments.listPayments(userId, page, size)));
  });

  router.post('/api/payment/cancel', async (req, res) => {
    res.json(ok(await payments.cancelSubscription(requireUser(req.context))));
  });

  // A new card for a past-due subscription, charged at once; the token is single-use, so it keys the charge.
  router.post('/api/payment/method', async (req, res) => {
    const userId = requireUser(req.context);
    const { paymentToken } = parseInput(methodBody, req.body);
    res.json(ok(await payments.replaceCard(userId, paymentToken, originOf(req), mailLanguageOf(req.get('accept-language')))));
  });

  router.post('/api/payment/resume', async (req, res) => {
    res.json(ok(await payments.resumeSubscription(requireUser(req.context))));
  });

  // A browser redirect with no token: the order is canceled by its (unguessable) id, only while unpaid.
  router.get('/api/webhook/payment/paypal-cancel', async (req, res) => {
    const { orderId = '' } = parseInput(cancelQuery, req.query);
    if (orderId) await payments.cancelRedirect(orderId);
    res.redirect(302, `/order/result?${new URLSearchParams({ orderId, status: 'canceled' })}`);
  });

  router.post('/api/webhook/payment/stripe', express.raw({ type: '*/*', limit: '1mb' }), async (req, res) => {
    const raw = rawBodyOf(req);
    try {
      if (!raw) throw new WebhookSignatureError('The webhook body did not arrive as sent, so its signature cannot be checked');
      await payments.receiveWebhook(raw, req.get('stripe-signature'));
    } catch (error) {
      // A refused webhook is an HTTP 400, not a handled outcome: the provider must see it failed.
      if (!(error instanceof WebhookSignatureError)) throw error;
      res.status(400).json(failure(400, error.message));
      return;
    }
    res.json(ok({ received: true }));
  });

  return router;
}
