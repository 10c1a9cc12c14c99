import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for api.stripe.com, for the real `stripe` SDK to talk to: the subset of Stripe's REST
 * API the Stripe adapter calls (customers, payment methods, PaymentIntents, refunds), spoken as Stripe
 * speaks it — form-encoded bodies with nested brackets, a Bearer secret key, Idempotency-Key replay
 * (declines included), errors in Stripe's shape and status (402 card_error with the PaymentIntent
 * inside), Stripe's test tokens, and ConfirmationTokens made by the test helper
 * (`stripe.testHelpers.confirmationTokens.create({ payment_method: 'pm_card_visa' })`) that a
 * PaymentIntent is created and confirmed with; `use_stripe_sdk` makes 3-D Secure Stripe.js's action.
 */

type Behaviour = 'succeeds' | 'authentication_on_setup' | 'authentication_always' | { code: string; decline_code: string; message: string };

const declined = (code: string, decline_code: string, message: string) => ({ code, decline_code, message });

/** Stripe's test tokens and what their cards do, keyed by the card number they stand for. */
const testTokens: Record<string, { token: string; brand: string; behaviour: Behaviour }> = {
  '4242424242424242': { token: 'tok_visa', brand: 'visa', behaviour: 'succeeds' },
  '4000000000000002': { token: 'tok_chargeDeclined', brand: 'visa', behaviour: declined('card_declined', 'generic_decline', 'Your card was declined.') },
  '4000000000009995': {
    token: 'tok_chargeDeclinedInsufficientFunds',
    brand: 'visa',
    behaviour: declined('card_declined', 'insufficient_funds', 'Your card has insufficient funds.'),
  },
  '4000000000000127': {
    token: 'tok_chargeDeclinedIncorrectCvc',
    brand: 'visa',
    behaviour: declined('incorrect_cvc', 'incorrect_cvc', "Your card's security code is incorrect."),
  },
  '4000000000000069': { token: 'tok_chargeDeclinedExpiredCard', brand: 'visa', behaviour: declined('expired_card', 'expired_card', 'Your card has expired.') },
  '4000000000000119': {
    token: 'tok_chargeDeclinedProcessingError',
    brand: 'visa',
    behaviour: declined('processing_error', 'processing_error', 'An error occurred while processing your card.'),
  },
  '4000000000009987': { token: 'tok_chargeDeclinedLostCard', brand: 'visa', behaviour: declined('card_declined', 'lost_card', 'Your card was declined.') },
  '4000000000009979': { token: 'tok_chargeDeclinedStolenCard', brand: 'visa', behaviour: declined('card_declined', 'stolen_card', 'Your card was declined.') },
  '4000002500003155': { token: 'tok_authenticationRequiredOnSetup', brand: 'visa', behaviour: 'authentication_on_setup' },
  '4000002760003184': { token: 'tok_authenticationRequired', brand: 'visa', behaviour: 'authentication_always' },
};

/** The test token Stripe.js would hand the browser for a test card number. */
export function stripeTestToken(cardNumber: string): string {
  const entry = testTokens[cardNumber];
  if (!entry) throw new Error(`no Stripe test token for ${cardNumber}`);
  return entry.token;
}

/** Stripe's test PaymentMethod for a test card number (pm_card_visa, pm_card_chargeDeclined...), as the confirmation-token helper takes it. */
export function stripeTestPaymentMethod(cardNumber: string): string {
  return `pm_card_${stripeTestToken(cardNumber).slice('tok_'.length)}`;
}

type Params = Record<string, unknown>;
type StripeObject = Record<string, unknown> & { id: string };

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

const invalid = (message: string, code?: string, param?: string) =>
  new ApiError(400, { type: 'invalid_request_error', message, ...(code && { code }), ...(param && { param }) });
const missing = (kind: string, id: unknown, param: string) => invalid(`No such ${kind}: '${String(id)}'`, 'resource_missing', param);

/** `a[b][c]=1&list[0]=x` → `{ a: { b: { c: '1' } }, list: { 0: 'x' } }`, on prototype-free objects. */
export function parseStripeForm(body: string): Params {
  const root: Params = Object.create(null);
  for (const [key, value] of new URLSearchParams(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match) throw invalid(`Invalid parameter: ${key}`, 'parameter_unknown', key);
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((segment) => segment[1]!)];
    let node = root;
    for (const segment of path.slice(0, -1)) node = (node[segment] ??= Object.create(null)) as Params;
    node[path.at(-1)!] = value;
  }
  return root;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

export interface StripeApiServer {
  url: string;
  /** Every PaymentIntent created, oldest first. */
  intents(): StripeObject[];
  /** Every Refund created, oldest first. */
  refunds(): StripeObject[];
  /** Every request that reached the API: method, path, and whether it was an idempotent replay. */
  requests: { method: string; path: string; replayed: boolean }[];
  close(): Promise<void>;
}

export async function startStripeApiServer(options: { secretKey: string }): Promise<StripeApiServer> {
  const customers = new Map<string, StripeObject>();
  const methods = new Map<string, StripeObject & { customer: string | null }>();
  const behaviours = new Map<string, Behaviour>();
  const intents = new Map<string, StripeObject>();
  const confirmationTokens = new Map<string, StripeObject & { payment_method_preview: Params }>();
  /** The card number each ConfirmationToken stands for. */
  const tokenCards = new Map<string, string>();
  /** Intents confirmed with use_stripe_sdk: their 3-D Secure is Stripe.js's to show. */
  const inPage = new Set<string>();
  const refunds = new Map<string, StripeObject>();
  /** What each charge (an intent's latest_charge) has refunded so far, in minor units. */
  const refundedOf = new Map<string, number>();
  const replays = new Map<string, { request: string; status: number; body: string }>();
  const requests: StripeApiServer['requests'] = [];
  let base = '';

  function createPaymentMethod(params: Params): StripeObject {
    if (params.type !== 'card') throw invalid('Only card payment methods are supported here', 'parameter_invalid', 'type');
    const token = (params.card as Params | undefined)?.token;
    const card = Object.entries(testTokens).find(([, entry]) => entry.token === token);
    if (!card) throw missing('token', token, 'card[token]');
    return methodFor(card[0]);
  }

  function methodFor(number: string, billingDetails: Params = {}): StripeObject {
    const entry = testTokens[number]!;
    const method = {
      id: newId('pm'),
      object: 'payment_method',
      type: 'card',
      card: { brand: entry.brand, last4: number.slice(-4), exp_month: 12, exp_year: new Date().getFullYear() + 3, funding: 'credit' },
      billing_details: billingDetails,
      customer: null,
      created: now(),
      livemode: false,
      metadata: {},
    };
    methods.set(method.id, method);
    behaviours.set(method.id, entry.behaviour);
    return method;
  }

  /** POST /v1/test_helpers/confirmation_tokens: what Stripe.js's createConfirmationToken makes in a browser, for a test PaymentMethod. */
  function createConfirmationToken(params: Params): StripeObject {
    const number = Object.keys(testTokens).find((candidate) => stripeTestPaymentMethod(candidate) === params.payment_method);
    if (!number) throw missing('payment_method', params.payment_method, 'payment_method');
    const entry = testTokens[number]!;
    const billing = ((params.payment_method_data as Params | undefined)?.billing_details ?? {}) as Params;
    const token = {
      id: newId('ctoken'),
      object: 'confirmation_token',
      created: now(),
      expires_at: now() + 12 * 3600,
      livemode: false,
      payment_intent: null,
      setup_future_usage: params.setup_future_usage ?? null,
      return_url: params.return_url ?? null,
      payment_method_preview: {
        type: 'card',
        card: { brand: entry.brand, last4: number.slice(-4), exp_month: 12, exp_year: new Date().getFullYear() + 3, funding: 'credit' },
        billing_details: billing,
      },
    };
    confirmationTokens.set(token.id, token);
    tokenCards.set(token.id, number);
    return token;
  }

  /** A PaymentMethod from an unused ConfirmationToken, which the intent then uses up. */
  function methodOfConfirmationToken(id: unknown, intentId: string): StripeObject & { customer: string | null } {
    const token = confirmationTokens.get(String(id));
    if (!token) throw missing('confirmation_token', id, 'confirmation_token');
    if (token.payment_intent) throw invalid('This ConfirmationToken has already been used to confirm a PaymentIntent.', 'token_already_used', 'confirmation_token');
    token.payment_intent = intentId;
    token.expires_at = null;
    const method = methodFor(tokenCards.get(token.id)!, token.payment_method_preview.billing_details as Params);
    return methods.get(method.id)!;
  }

  function failIntent(intent: StripeObject, error: Record<string, unknown>): never {
    intent.status = 'requires_payment_method';
    intent.last_payment_error = error;
    intent.next_action = null;
    throw new ApiError(402, { ...error, payment_intent: intent, payment_method: methods.get(String(intent.payment_method)) });
  }

  function succeed(intent: StripeObject): void {
    intent.status = 'succeeded';
    intent.amount_received = intent.amount;
    intent.latest_charge = newId('ch');
    intent.next_action = null;
    const method = methods.get(String(intent.payment_method))!;
    if (intent.setup_future_usage === 'off_session' && intent.customer) method.customer = String(intent.customer);
  }

  /** Confirms as Stripe's test cards do: on session a 3-D Secure card redirects, off session it fails or passes. */
  function confirm(intent: StripeObject, offSession: boolean): void {
    const behaviour = behaviours.get(String(intent.payment_method))!;
    if (typeof behaviour === 'object') failIntent(intent, { type: 'card_error', charge: newId('ch'), doc_url: 'https://stripe.com/docs/error-codes', ...behaviour });
    if (behaviour === 'succeeds') return succeed(intent);
    if (offSession) {
      if (behaviour === 'authentication_always') {
        failIntent(intent, {
          type: 'card_error',
          code: 'authentication_required',
          decline_code: 'authentication_required',
          message: 'Your card was declined. This transaction requires authentication.',
        });
      }
      return succeed(intent);
    }
    intent.status = 'requires_action';
    intent.next_action = inPage.has(intent.id)
      ? { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: `${base}/test_3ds/${intent.id}` } }
      : intent.return_url
      ? { type: 'redirect_to_url', redirect_to_url: { url: `${base}/test_3ds/${intent.id}`, return_url: intent.return_url } }
      : { type: 'use_stripe_sdk', use_stripe_sdk: {} };
  }

  function createPaymentIntent(params: Params): StripeObject {
    const amount = Number(params.amount);
    if (!Number.isSafeInteger(amount) || amount < 1) throw invalid('Invalid integer: amount', 'parameter_invalid_integer', 'amount');
    if (typeof params.currency !== 'string' || !/^[a-z]{3}$/.test(params.currency)) throw invalid('Invalid currency', 'parameter_invalid', 'currency');
    if (params.customer !== undefined && !customers.has(String(params.customer))) throw missing('customer', params.customer, 'customer');
    const id = newId('pi');
    if (params.confirmation_token !== undefined && params.payment_method !== undefined) {
      throw invalid('You cannot provide both a payment_method and a confirmation_token.', 'parameter_invalid', 'confirmation_token');
    }
    const method = params.confirmation_token !== undefined ? methodOfConfirmationToken(params.confirmation_token, id) : methods.get(String(params.payment_method));
    if (!method) throw missing('payment_method', params.payment_method, 'payment_method');
    if (method.customer && method.customer !== params.customer) {
      throw invalid('The provided PaymentMethod belongs to another Customer.', 'payment_method_unexpected_state', 'payment_method');
    }
    const offSession = params.off_session === 'true';
    if (offSession && !method.customer) {
      throw invalid('The provided PaymentMethod must be attached to the Customer to be used off session.', 'payment_method_unexpected_state', 'payment_method');
    }
    const intent: StripeObject = {
      id,
      object: 'payment_intent',
      amount,
      amount_received: 0,
      currency: params.currency,
      status: 'requires_confirmation',
      customer: params.customer ?? null,
      payment_method: method.id,
      setup_future_usage: params.setup_future_usage ?? null,
      metadata: params.metadata ?? {},
      return_url: params.return_url ?? null,
      next_action: null,
      last_payment_error: null,
      latest_charge: null,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
      created: now(),
      livemode: false,
    };
    intents.set(intent.id, intent);
    if (params.use_stripe_sdk === 'true') inPage.add(intent.id);
    if (params.confirm === 'true') confirm(intent, offSession);
    return intent;
  }

  /** POST /v1/refunds as Stripe answers it: by payment_intent or charge, the rest of the charge when no amount is given. */
  function createRefund(params: Params): StripeObject {
    const byCharge = params.charge === undefined ? undefined : [...intents.values()].find((intent) => intent.latest_charge === params.charge);
    const intent = byCharge ?? intents.get(String(params.payment_intent));
    if (!intent) {
      throw params.charge === undefined ? missing('payment_intent', params.payment_intent, 'payment_intent') : missing('charge', params.charge, 'charge');
    }
    if (intent.status !== 'succeeded' || !intent.latest_charge) {
      throw invalid(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, 'charge_not_refundable', 'payment_intent');
    }
    const charge = String(intent.latest_charge);
    const refunded = refundedOf.get(charge) ?? 0;
    const left = Number(intent.amount) - refunded;
    if (left <= 0) throw invalid(`Charge ${charge} has already been refunded.`, 'charge_already_refunded');
    const amount = params.amount === undefined ? left : Number(params.amount);
    if (!Number.isSafeInteger(amount) || amount < 1) throw invalid('Invalid integer: amount', 'parameter_invalid_integer', 'amount');
    if (amount > left) {
      const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;
      throw invalid(`Refund amount (${dollars(amount)}) is greater than unrefunded amount on charge (${dollars(left)})`, 'amount_too_large', 'amount');
    }
    refundedOf.set(charge, refunded + amount);
    const refund: StripeObject = {
      id: newId('re'),
      object: 'refund',
      amount,
      balance_transaction: newId('txn'),
      charge,
      created: now(),
      currency: intent.currency,
      metadata: params.metadata ?? {},
      payment_intent: intent.id,
      reason: params.reason ?? null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: 'succeeded',
      transfer_reversal: null,
    };
    refunds.set(refund.id, refund);
    return refund;
  }

  function route(method: string, path: string, params: Params): StripeObject | Record<string, unknown> {
    if (method === 'GET' && path === '/v1/customers') {
      const data = [...customers.values()].filter((customer) => params.email === undefined || customer.email === params.email);
      return { object: 'list', url: '/v1/customers', has_more: false, data: data.slice(0, Number(params.limit ?? 10)) };
    }
    if (method === 'POST' && path === '/v1/customers') {
      const customer = { id: newId('cus'), object: 'customer', email: params.email ?? null, name: params.name ?? null, metadata: params.metadata ?? {}, created: now() };
      customers.set(customer.id, customer);
      return customer;
    }
    if (method === 'POST' && path === '/v1/payment_methods') return createPaymentMethod(params);
    if (method === 'POST' && path === '/v1/payment_intents') return createPaymentIntent(params);
    if (method === 'POST' && path === '/v1/test_helpers/confirmation_tokens') return createConfirmationToken(params);
    if (method === 'POST' && path === '/v1/refunds') return createRefund(params);
    const intentPath = /^\/v1\/payment_intents\/([\w-]+)$/.exec(path);
    if (method === 'GET' && intentPath) {
      const intent = intents.get(intentPath[1]!);
      if (!intent) throw missing('payment_intent', intentPath[1], 'intent');
      return intent;
    }
    throw new ApiError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  /** The 3-D Secure test page's buttons: the browser posts here, then returns to the shop. */
  function finishAuthentication(intentId: string, passed: boolean, res: http.ServerResponse): void {
    const intent = intents.get(intentId);
    if (!intent) return void res.writeHead(404).end();
    if (intent.status === 'requires_action') {
      if (passed) succeed(intent);
      else {
        intent.status = 'requires_payment_method';
        intent.next_action = null;
        intent.last_payment_error = {
          type: 'invalid_request_error',
          code: 'payment_intent_authentication_failure',
          message: 'We are unable to authenticate your payment method.',
        };
      }
    }
    // Stripe.js's in-page challenge resolves with the intent; a redirect goes back to return_url.
    if (inPage.has(intent.id)) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(intent));
    const status = intent.status === 'succeeded' ? 'succeeded' : 'failed';
    res.writeHead(303, { location: `${intent.return_url}?payment_intent=${intent.id}&redirect_status=${status}` }).end();
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    const answer = (status: number, payload: unknown, replayed = false) => {
      const text = JSON.stringify(payload);
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': newId('req'),
        ...(replayed && { 'idempotent-replayed': 'true' }),
      });
      res.end(text);
      return text;
    };

    const authentication = /^\/test_3ds\/([\w-]+)\/(complete|fail)$/.exec(url.pathname);
    if (authentication && method === 'POST') return finishAuthentication(authentication[1]!, authentication[2] === 'complete', res);

    if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
      answer(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
      return;
    }
    const key = method === 'POST' ? req.headers['idempotency-key'] : undefined;
    const request = `${method} ${url.pathname} ${body}`;
    const earlier = typeof key === 'string' ? replays.get(key) : undefined;
    if (earlier) {
      requests.push({ method, path: url.pathname, replayed: true });
      if (earlier.request !== request) {
        answer(400, {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          },
        });
        return;
      }
      res.writeHead(earlier.status, { 'content-type': 'application/json', 'idempotent-replayed': 'true' }).end(earlier.body);
      return;
    }
    requests.push({ method, path: url.pathname, replayed: false });
    let status = 200;
    let text: string;
    try {
      const params = method === 'GET' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(body);
      text = answer(200, route(method, url.pathname, params));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      status = error.status;
      text = answer(error.status, { error: error.body });
    }
    // Stripe saves the first answer to a key, errors included, and replays it for 24 hours.
    if (typeof key === 'string') replays.set(key, { request, status, body: text });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    intents: () => [...intents.values()],
    refunds: () => [...refunds.values()],
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
