import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Plan } from '../../api/types';
import { renderShop, serveShop, type, type Shop } from './shopTesting';
import { STRIPE_JS_URL, type StripeElementsOptions, type StripeJs, type StripeJsError, type StripePaymentChange } from './stripeJs';

const plans: Plan[] = [
  { id: 'coins-500', kind: 'coins', title: 'Starter', price: { amount: 499, currency: 'USD' }, coins: 500, bonusCoins: 50 },
  { id: 'vip-week', kind: 'vip', title: 'VIP Weekly', price: { amount: 699, currency: 'USD' }, periodDays: 7 },
];
const CARD = '4242424242424242';
const CLIENT_SECRET = 'pi_3DS_secret_abc';

/** The gateway of a site with Stripe configured, in memory: the config names Stripe, and no sandbox is served. */
let shop: Shop;

/** The pay call answering that the bank asks for 3-D Secure, as the payment service does with Stripe: a client secret, no page to leave for. */
function payAsksForAuthentication() {
  shop.routes['POST /api/payment/pay'] = (call) => ({ data: { orderId: call.body?.orderId, status: 'requires_action', clientSecret: CLIENT_SECRET } });
}

/** POST /api/payment/complete answering the payment's outcome after the challenge. */
function completeAnswers(result: { status: 'succeeded' } | { status: 'failed'; message: string }) {
  shop.routes['POST /api/payment/complete'] = (call) => {
    const order = shop.orders.find((entry) => entry.id === call.body?.orderId)!;
    order.status = result.status;
    return { data: { orderId: order.id, ...result } };
  };
}

type Outcome<T> = T | { error: StripeJsError };

/**
 * Stripe.js as far as the card form uses it, answering as docs.stripe.com/js documents: `elements`
 * without an intent (mode, amount, currency), a Payment Element whose iframe is stood in for by an
 * input in the mount box (where nothing of ours should ever read the card), `elements.submit()`
 * before `createConfirmationToken` (Stripe.js refuses the token otherwise), and `handleNextAction`
 * with a PaymentIntent's client secret. Results are `{ ... }` or `{ error }`, never thrown.
 */
function fakeStripeJs(
  script: {
    submits?: Outcome<object>[];
    tokens?: Outcome<{ id: string }>[];
    actions?: Outcome<{ status: string }>[];
  } = {},
) {
  const listeners: ((change: StripePaymentChange) => void)[] = [];
  let box: HTMLElement | null = null;
  let submitted = false;
  let tokenCount = 0;
  const element = {
    mount: vi.fn((container: HTMLElement) => {
      box = container;
      const input = document.createElement('input');
      input.name = 'number';
      input.value = CARD;
      container.appendChild(input);
    }),
    on: vi.fn((_event: 'change', listener: (change: StripePaymentChange) => void) => void listeners.push(listener)),
    focus: vi.fn(),
    destroy: vi.fn(() => box?.replaceChildren()),
  };
  const create = vi.fn(() => element);
  const elements = {
    create,
    submit: vi.fn(async () => {
      const answer = script.submits?.shift() ?? {};
      submitted = !('error' in answer);
      return answer;
    }),
  };
  const client = {
    elements: vi.fn((options: StripeElementsOptions) => {
      if (options.mode !== 'payment' || !Number.isInteger(options.amount) || options.currency !== options.currency.toLowerCase()) {
        throw new Error('IntegrationError: Invalid value for elements(): mode, amount and a lowercase currency are required.');
      }
      return elements;
    }),
    createConfirmationToken: vi.fn(async (options: { elements: unknown; params?: unknown }) => {
      if (options.elements !== elements) throw new Error('IntegrationError: createConfirmationToken needs the Elements instance that mounted the Payment Element.');
      if (!submitted) throw new Error('IntegrationError: elements.submit() must be called before stripe.createConfirmationToken().');
      submitted = false;
      tokenCount += 1;
      const answer = script.tokens?.shift() ?? { id: `ctoken_${tokenCount}` };
      return 'error' in answer ? answer : { confirmationToken: { ...answer, object: 'confirmation_token', payment_method_preview: { type: 'card', card: { brand: 'visa', last4: CARD.slice(-4) } } } };
    }),
    handleNextAction: vi.fn(async ({ clientSecret }: { clientSecret: string }) => {
      if (!/^pi_\w+_secret_\w+$/.test(clientSecret)) throw new Error('IntegrationError: Invalid value for handleNextAction: clientSecret should be a client secret.');
      const answer = script.actions?.shift() ?? { status: 'succeeded' };
      return 'error' in answer ? answer : { paymentIntent: { id: clientSecret.split('_secret_')[0]!, object: 'payment_intent', ...answer } };
    }),
  };
  const Stripe = vi.fn<StripeJs>(() => client);
  return {
    Stripe,
    client,
    elements,
    create,
    element,
    /** What Stripe's iframe reports as the buyer types. */
    change: (change: Partial<StripePaymentChange> = {}) =>
      listeners.forEach((listener) => listener({ elementType: 'payment', empty: false, complete: true, value: { type: 'card' }, ...change })),
  };
}


const calls = (method: string, path: string) => shop.calls(method, path);
const stripeScripts = () => document.querySelectorAll(`script[src="${STRIPE_JS_URL}"]`);
const cardMessage = async () => (await within(screen.getByRole('group', { name: 'Card' })).findByRole('alert')).textContent;

async function openForm(planId = 'coins-500', button = 'Pay $4.99') {
  renderShop(`/order/easy?planId=${planId}`);
  const pay = await screen.findByRole('button', { name: button });
  await vi.waitFor(() => expect((pay as HTMLButtonElement).disabled).toBe(false));
  type('First name', 'Ada');
  type('Last name', 'Lovelace');
  return pay;
}

beforeEach(() => {
  shop = serveShop({
    plans,
    coins: 0,
    provider: {
      'GET /api/payment/config': () => ({ data: { provider: 'stripe', publishableKey: 'pk_test_cliffhanger' } }),
      'POST /api/payment/pay': (call) => {
        shop.orders.find((order) => order.id === call.body?.orderId)!.status = 'succeeded';
        return { data: { orderId: call.body?.orderId, status: 'succeeded' } };
      },
    },
    fallback: { status: 404, body: 'Not Found' },
  });
});

afterEach(() => {
  document.head.querySelectorAll('script').forEach((script) => script.remove());
});

describe('paying by card with Stripe configured', () => {
  it("puts Stripe's Payment Element where the card fields were, and pays with a ConfirmationToken only", async () => {
    const stripe = fakeStripeJs();
    vi.stubGlobal('Stripe', stripe.Stripe);
    const router = renderShop('/order/easy?planId=coins-500');
    const group = await screen.findByRole('group', { name: 'Card' });
    await vi.waitFor(() => expect(stripe.element.mount).toHaveBeenCalledWith(group.querySelector('.stripe-card')));
    expect(stripe.Stripe).toHaveBeenCalledWith('pk_test_cliffhanger', { locale: 'en' });
    expect(stripe.client.elements).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ mode: 'payment', amount: 499, currency: 'usd', paymentMethodTypes: ['card'], appearance: expect.objectContaining({ theme: 'night' }) }),
    );
    expect(stripe.client.elements.mock.calls[0]![0]).not.toHaveProperty('setupFutureUsage');
    expect(stripe.create).toHaveBeenCalledWith('payment', expect.objectContaining({ wallets: { applePay: 'never', googlePay: 'never' } }));
    expect(screen.queryByLabelText('Card number')).toBeNull();
    expect(screen.queryByLabelText('Expiry (MM/YY)')).toBeNull();
    expect(screen.queryByLabelText('CVV')).toBeNull();
    await vi.waitFor(() => expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@example.com'));

    const pay = await screen.findByRole('button', { name: 'Pay $4.99' });
    await vi.waitFor(() => expect((pay as HTMLButtonElement).disabled).toBe(false));
    type('First name', 'Ada');
    type('Last name', 'Lovelace');
    fireEvent.click(pay);

    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    expect(router.state.location.search).toBe('?orderId=o1&status=succeeded');
    expect(stripe.elements.submit).toHaveBeenCalledTimes(1);
    expect(stripe.client.createConfirmationToken).toHaveBeenCalledExactlyOnceWith({
      elements: stripe.elements,
      params: { payment_method_data: { billing_details: { name: 'Ada Lovelace', email: 'ada@example.com' } } },
    });
    expect(calls('POST', '/api/payment/pay')[0]!.body).toEqual({ orderId: 'o1', paymentToken: 'ctoken_1', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' });
    expect(stripe.client.handleNextAction).not.toHaveBeenCalled();
    expect(calls('POST', '/api/payment/complete')).toHaveLength(0);
    expect(calls('POST', '/sandbox/v1/tokens')).toHaveLength(0);
    expect(stripeScripts()).toHaveLength(0);
    for (const call of shop.sent) expect(`${call.url} ${JSON.stringify(call.body)}`).not.toContain(CARD);
  });

  it('tells Elements that a VIP plan keeps the card for renewals, as the PaymentIntent will', async () => {
    const stripe = fakeStripeJs();
    vi.stubGlobal('Stripe', stripe.Stripe);
    await openForm('vip-week', 'Pay $6.99');
    expect(stripe.client.elements).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ amount: 699, currency: 'usd', setupFutureUsage: 'off_session' }));
  });

  it("shows Stripe's message at the card when it finds the card incomplete, and asks for no token and pays nothing", async () => {
    const stripe = fakeStripeJs({ submits: [{ error: { type: 'validation_error', code: 'incomplete_number', message: 'Your card number is incomplete.' } }] });
    vi.stubGlobal('Stripe', stripe.Stripe);
    fireEvent.click(await openForm());

    expect(await cardMessage()).toBe('Your card number is incomplete.');
    const group = screen.getByRole('group', { name: 'Card' });
    expect(group.getAttribute('aria-describedby')).toBe(within(group).getByRole('alert').id);
    expect(stripe.client.createConfirmationToken).not.toHaveBeenCalled();
    expect(calls('POST', '/api/payment/pay')).toHaveLength(0);
    expect(screen.getByRole('heading', { name: 'Pay by card' })).toBeTruthy();
  });

  it("shows Stripe's refusal of the token at the card until the card is changed; the payer's fields are still checked by the form", async () => {
    const stripe = fakeStripeJs({ tokens: [{ error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' } }] });
    vi.stubGlobal('Stripe', stripe.Stripe);
    fireEvent.click(await openForm());
    expect(await cardMessage()).toBe('Your card was declined.');
    expect(calls('POST', '/api/payment/pay')).toHaveLength(0);

    type('Last name', '');
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    expect(await screen.findByText('Please enter your last name')).toBeTruthy();
    expect(await cardMessage()).toBe('Your card was declined.');
    expect(stripe.elements.submit).toHaveBeenCalledTimes(1);

    stripe.change();
    await vi.waitFor(() => expect(within(screen.getByRole('group', { name: 'Card' })).queryByRole('alert')).toBeNull());
  });

  it('takes 3-D Secure in the page with the client secret, then has the server complete the payment', async () => {
    payAsksForAuthentication();
    completeAnswers({ status: 'succeeded' });
    const stripe = fakeStripeJs();
    vi.stubGlobal('Stripe', stripe.Stripe);
    const pay = await openForm();
    const assign = vi.fn();
    vi.stubGlobal('location', { assign, href: 'http://localhost/order/easy', pathname: '/order/easy', hostname: 'localhost' });
    fireEvent.click(pay);

    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    expect(stripe.client.handleNextAction).toHaveBeenCalledExactlyOnceWith({ clientSecret: CLIENT_SECRET });
    expect(calls('POST', '/api/payment/complete').map((call) => call.body)).toEqual([{ orderId: 'o1' }]);
    expect(calls('POST', '/api/payment/pay')).toHaveLength(1);
    expect(assign).not.toHaveBeenCalled();
  });

  it("shows Stripe's message at the card when the challenge fails, and pays the same order with the card changed", async () => {
    payAsksForAuthentication();
    completeAnswers({ status: 'failed', message: 'We could not verify your card. Please try again or use another card.' });
    const failed = 'We are unable to authenticate your payment method. Please choose a different payment method and try again.';
    const stripe = fakeStripeJs({ actions: [{ error: { type: 'invalid_request_error', code: 'payment_intent_authentication_failure', message: failed } }] });
    vi.stubGlobal('Stripe', stripe.Stripe);
    fireEvent.click(await openForm());

    expect(await cardMessage()).toBe(failed);
    expect(calls('POST', '/api/payment/complete')).toHaveLength(1);
    expect(screen.getByRole('heading', { name: 'Pay by card' })).toBeTruthy();

    shop.routes['POST /api/payment/pay'] = (call) => {
      shop.orders.find((order) => order.id === call.body?.orderId)!.status = 'succeeded';
      return { data: { orderId: call.body?.orderId, status: 'succeeded' } };
    };
    stripe.change();
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    expect(calls('POST', '/api/payment/order')).toHaveLength(1);
    expect(calls('POST', '/api/payment/pay').map((call) => call.body?.paymentToken)).toEqual(['ctoken_1', 'ctoken_2']);
  });

  it("shows a decline that came after the challenge in Stripe's words, at the card", async () => {
    payAsksForAuthentication();
    completeAnswers({ status: 'failed', message: 'Your card has insufficient funds.' });
    const stripe = fakeStripeJs({ actions: [{ error: { type: 'card_error', code: 'card_declined', message: 'Your card has insufficient funds.' } }] });
    vi.stubGlobal('Stripe', stripe.Stripe);
    fireEvent.click(await openForm());
    expect(await cardMessage()).toBe('Your card has insufficient funds.');
    expect(screen.queryByRole('heading', { name: 'Payment successful' })).toBeNull();
  });

  it("believes the server over the challenge: a challenge that reported an error while the bank took the money is paid", async () => {
    payAsksForAuthentication();
    completeAnswers({ status: 'succeeded' });
    const stripe = fakeStripeJs({ actions: [{ error: { type: 'api_connection_error', message: 'We could not reach Stripe.' } }] });
    vi.stubGlobal('Stripe', stripe.Stripe);
    fireEvent.click(await openForm());
    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
  });

  it('leaves the outcome to the result page when the server does not answer after the challenge', async () => {
    payAsksForAuthentication();
    shop.routes['POST /api/payment/complete'] = () => 'no answer';
    vi.stubGlobal('Stripe', fakeStripeJs().Stripe);
    const router = renderShop('/order/easy?planId=coins-500');
    const pay = await screen.findByRole('button', { name: 'Pay $4.99' });
    await vi.waitFor(() => expect((pay as HTMLButtonElement).disabled).toBe(false));
    type('First name', 'Ada');
    type('Last name', 'Lovelace');
    fireEvent.click(pay);
    await vi.waitFor(() => expect(router.state.location.search).toBe('?orderId=o1&status=pending'));
  });

  it('repeats an unanswered payment with the same token and key, and asks Stripe again once the card changed', async () => {
    shop.routes['POST /api/payment/pay'] = () => 'no answer';
    const stripe = fakeStripeJs();
    vi.stubGlobal('Stripe', stripe.Stripe);
    fireEvent.click(await openForm());
    expect(await screen.findByText('We did not hear back about your payment. Press Pay again: you will not be charged twice.')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    await vi.waitFor(() => expect(calls('POST', '/api/payment/pay')).toHaveLength(2));
    const [first, again] = calls('POST', '/api/payment/pay');
    expect(again!.body).toEqual(first!.body);
    expect(again!.headers['Idempotency-Key']).toBe(first!.headers['Idempotency-Key']);
    expect(stripe.client.createConfirmationToken).toHaveBeenCalledTimes(1);

    await screen.findByRole('button', { name: 'Pay $4.99' });
    stripe.change();
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    await vi.waitFor(() => expect(calls('POST', '/api/payment/pay')).toHaveLength(3));
    const changed = calls('POST', '/api/payment/pay')[2]!;
    expect(changed.body).toMatchObject({ orderId: 'o1', paymentToken: 'ctoken_2' });
    expect(changed.headers['Idempotency-Key']).not.toBe(first!.headers['Idempotency-Key']);
  });
});

describe("a past-due VIP's new card with Stripe configured", () => {
  const renewedTo = '2027-01-06T12:00:00Z';
  let subscription: { planId: string; status: string; renewsAt: string; cancelAtPeriodEnd: boolean };

  beforeEach(() => {
    shop.user = { ...shop.user, vip: { planId: 'vip-week', renewsAt: '2026-12-06T12:00:00Z', cancelAtPeriodEnd: false } };
    subscription = { planId: 'vip-week', status: 'past_due', renewsAt: '2026-12-06T12:00:00Z', cancelAtPeriodEnd: false };
    shop.orders = [{ id: 'renewal-1', planId: 'vip-week', price: { amount: 649, currency: 'USD' }, status: 'failed', createdAt: '2026-12-06T12:00:00Z' }];
    shop.routes['GET /api/payment'] = () => ({ data: { items: shop.orders, page: 1, size: 20, hasMore: false, subscription } });
    shop.routes['POST /api/payment/method'] = () => ({ data: { ...subscription, payment: { orderId: 'renewal-1', status: 'requires_action', clientSecret: CLIENT_SECRET } } });
  });

  async function submitNewCard(stripe: ReturnType<typeof fakeStripeJs>) {
    vi.stubGlobal('Stripe', stripe.Stripe);
    renderShop('/shopping');
    const form = await screen.findByRole('form', { name: 'Your VIP renewal failed' });
    const submit = within(form).getByRole('button', { name: 'Update card and pay' });
    await vi.waitFor(() => expect((submit as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(submit);
  }

  it("is charged for the failed period's price, 3-D Secure is taken in the page, and the viewer is VIP again", async () => {
    shop.routes['POST /api/payment/complete'] = () => {
      subscription = { ...subscription, status: 'active', renewsAt: renewedTo };
      shop.user = { ...shop.user, vip: { planId: 'vip-week', renewsAt: renewedTo, cancelAtPeriodEnd: false } };
      return { data: { orderId: 'renewal-1', status: 'succeeded' } };
    };
    const stripe = fakeStripeJs();
    await submitNewCard(stripe);

    expect(await screen.findByText('Card updated: you are VIP again. Renews on January 6, 2027.')).toBeTruthy();
    expect(stripe.client.elements).toHaveBeenCalledWith(expect.objectContaining({ amount: 649, currency: 'usd', setupFutureUsage: 'off_session' }));
    expect(stripe.client.createConfirmationToken).toHaveBeenCalledWith(expect.objectContaining({ params: { payment_method_data: { billing_details: { email: 'ada@example.com' } } } }));
    expect(calls('POST', '/api/payment/method').map((call) => call.body)).toEqual([{ paymentToken: 'ctoken_1' }]);
    expect(stripe.client.handleNextAction).toHaveBeenCalledExactlyOnceWith({ clientSecret: CLIENT_SECRET });
    expect(calls('POST', '/api/payment/complete').map((call) => call.body)).toEqual([{ orderId: 'renewal-1' }]);
  });

  it("shows Stripe's message at the card when the challenge fails, and keeps the form", async () => {
    shop.routes['POST /api/payment/complete'] = () => ({ data: { orderId: 'renewal-1', status: 'failed', message: 'We could not verify your card. Please try again or use another card.' } });
    const failed = 'We are unable to authenticate your payment method. Please choose a different payment method and try again.';
    await submitNewCard(fakeStripeJs({ actions: [{ error: { type: 'invalid_request_error', code: 'payment_intent_authentication_failure', message: failed } }] }));

    expect(await cardMessage()).toBe(failed);
    expect(screen.getByRole('button', { name: 'Update card and pay' })).toBeTruthy();
    expect(screen.queryByText(/Card updated/)).toBeNull();
  });
});

describe('loading Stripe.js', () => {
  it('adds its script from js.stripe.com once, on this page, and mounts the card when it has loaded', async () => {
    renderShop('/order/easy?planId=coins-500');
    await screen.findByText('Loading the secure card field...');
    await vi.waitFor(() => expect(stripeScripts()).toHaveLength(1));
    expect((screen.getByRole('button', { name: 'Pay $4.99' }) as HTMLButtonElement).disabled).toBe(true);

    const stripe = fakeStripeJs();
    vi.stubGlobal('Stripe', stripe.Stripe);
    stripeScripts()[0]!.dispatchEvent(new Event('load'));
    await vi.waitFor(() => expect(stripe.element.mount).toHaveBeenCalledTimes(1));
    expect(screen.queryByText('Loading the secure card field...')).toBeNull();
    expect(stripeScripts()).toHaveLength(1);
  });

  it('says so when it cannot load, and tries again on request', async () => {
    renderShop('/order/easy?planId=coins-500');
    await screen.findByText('Loading the secure card field...');
    await vi.waitFor(() => expect(stripeScripts()).toHaveLength(1));
    stripeScripts()[0]!.dispatchEvent(new Event('error'));
    const group = screen.getByRole('group', { name: 'Card' });
    expect((await within(group).findByRole('alert')).textContent).toContain('We could not reach our payment provider.');
    expect(stripeScripts()).toHaveLength(0);

    fireEvent.click(within(group).getByRole('button', { name: 'Try again' }));
    await vi.waitFor(() => expect(stripeScripts()).toHaveLength(1));
  });

  it('is never loaded with the sandbox, whose card fields stay ours', async () => {
    shop.routes['GET /api/payment/config'] = () => ({ data: { provider: 'sandbox', tokenUrl: '/sandbox/v1/tokens' } });
    renderShop('/order/easy?planId=coins-500');
    await screen.findByRole('button', { name: 'Pay $4.99' });
    expect(screen.getByLabelText('Card number')).toBeTruthy();
    expect(screen.queryByRole('group', { name: 'Card' })).toBeNull();
    expect(stripeScripts()).toHaveLength(0);
  });
});
