import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { challengePage, notFoundPage, pageSecurityPolicy, paypalPage } from './sandbox-pages.ts';
import type { SandboxPaymentProvider } from './sandbox-provider.ts';

/**
 * The sandbox's own HTTP face, mounted at the site's root beside /api and only when the sandbox is
 * the provider. It answers like Stripe (plain JSON, `{ error: { code, message } }`), not with the
 * envelope: the browser's card form talks to it as it would talk to Stripe.
 *
 *   POST /sandbox/v1/confirmation_tokens             Stripe.js's createConfirmationToken (the card in payment_method_data)
 *   GET  /sandbox/v1/payment_intents/:id             the payment as the browser sees it (?client_secret=)
 *   POST /sandbox/v1/payment_intents/:id/authenticate  the in-page challenge's outcome ({ client_secret, passed })
 *   POST /sandbox/v1/tokens                          tokenize a card (JSON in, Stripe's token out; pages loaded before confirmation tokens)
 *   GET  /sandbox/v1/challenge/:id                   the 3-D Secure test page
 *   POST /sandbox/v1/challenge/:id/{complete,fail}   settle it, then 303 to the charge's returnUrl
 *   GET  /sandbox/paypal/:id                         the PayPal stand-in's approval page
 *   POST /sandbox/paypal/:id/{approve,cancel}        settle or drop it, then 303 to returnUrl or cancelUrl
 */
export function createSandboxRouter(provider: SandboxPaymentProvider): Router {
  const router = Router();
  const json = express.json({ limit: '4kb', strict: false, type: () => true });

  router.post('/sandbox/v1/tokens', json, async (req, res) => {
    const answer = await provider.tokenize(req.body);
    res.status('error' in answer ? 402 : 200).json(answer);
  });

  router.post('/sandbox/v1/confirmation_tokens', json, async (req, res) => {
    const answer = await provider.createConfirmationToken(req.body);
    res.status('error' in answer ? 402 : 200).json(answer);
  });

  const noSuchIntent = (res: Response) =>
    res.status(404).json({ error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent, or a wrong client secret.' } });

  router.get('/sandbox/v1/payment_intents/:paymentId', async (req: Request<{ paymentId: string }>, res) => {
    const intent = await provider.browserIntent(req.params.paymentId, String(req.query.client_secret ?? ''));
    if (intent) res.set('cache-control', 'no-store').json(intent);
    else noSuchIntent(res);
  });

  router.post('/sandbox/v1/payment_intents/:paymentId/authenticate', json, async (req: Request<{ paymentId: string }>, res) => {
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as { client_secret?: unknown; passed?: unknown };
    const intent = await provider.authenticateInPage(req.params.paymentId, String(body.client_secret ?? ''), body.passed === true);
    if (intent) res.json(intent);
    else noSuchIntent(res);
  });

  function showPage(flow: 'card' | 'redirect', render: typeof challengePage) {
    return async (req: Request<{ paymentId: string }>, res: Response) => {
      res.set({ 'content-security-policy': pageSecurityPolicy, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      const payment = await provider.describePayment(req.params.paymentId);
      if (!payment || payment.flow !== flow) {
        res.status(404).type('html').send(notFoundPage());
        return;
      }
      // A settled payment's page has nothing left to do: send the browser on as its buttons would.
      if (payment.status !== 'requires_action') {
        const next = await (flow === 'card' ? provider.finishChallenge(payment.id, false) : provider.finishRedirect(payment.id, false));
        res.redirect(303, next!);
        return;
      }
      res.type('html').send(render(payment));
    };
  }

  function settle(finish: (paymentId: string) => Promise<string | null>) {
    return async (req: Request<{ paymentId: string }>, res: Response) => {
      const next = await finish(req.params.paymentId);
      if (next === null) res.status(404).set('content-security-policy', pageSecurityPolicy).type('html').send(notFoundPage());
      else res.redirect(303, next);
    };
  }

  router.get('/sandbox/v1/challenge/:paymentId', showPage('card', challengePage));
  router.post('/sandbox/v1/challenge/:paymentId/complete', settle((id) => provider.finishChallenge(id, true)));
  router.post('/sandbox/v1/challenge/:paymentId/fail', settle((id) => provider.finishChallenge(id, false)));
  router.get('/sandbox/paypal/:paymentId', showPage('redirect', paypalPage));
  router.post('/sandbox/paypal/:paymentId/approve', settle((id) => provider.finishRedirect(id, true)));
  router.post('/sandbox/paypal/:paymentId/cancel', settle((id) => provider.finishRedirect(id, false)));

  // Stripe's answers for a body that is not JSON or too large; anything else is ours to fix.
  router.use('/sandbox', (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const { status, type } = error as { status?: number; type?: string };
    if (status === undefined || status >= 500 || res.headersSent) return next(error);
    const message = type === 'entity.too.large' ? 'The request body is too large.' : 'The request body is not valid JSON.';
    res.status(status).json({ error: { type: 'invalid_request_error', code: 'parameter_invalid', message } });
  });
  return router;
}
