import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Order, Plan, User } from '../../api/types';
import { I18nProvider } from '../../i18n/I18nProvider';
import { keepUserToken } from '../../lib/attribution';
import { OrderEasyPage } from './OrderEasyPage';
import { OrderResultPage } from './OrderResultPage';
import { STRIPE_JS_URL, type StripeCardChange, type StripeJs } from './stripeJs';

interface Sent {
  method: string;
  path: string;
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

type Answer = { data: unknown } | 'no answer';

const plans: Plan[] = [{ id: 'coins-500', kind: 'coins', title: 'Starter', price: { amount: 499, currency: 'USD' }, coins: 500, bonusCoins: 50 }];
const CARD = '4242424242424242';

let sent: Sent[];
let orders: Order[];
let routes: Record<string, (call: Sent) => Answer>;

/** The gateway of a site with Stripe configured, in memory: the config names Stripe, and no sandbox is served. */
function serve() {
  const user: User = { id: 'u1', kind: 'member', email: 'ada@example.com', coins: 0, bonusCoins: 0, vip: null, settings: { autoUnlock: false } };
  orders = [];
  routes = {
    'GET /api/user': () => ({ data: user }),
    'GET /api/plan': () => ({ data: plans }),
    'GET /api/payment/config': () => ({ data: { provider: 'stripe', publishableKey: 'pk_test_cliffhanger' } }),
    'POST /api/payment/order': () => {
      const order: Order = { id: `o${orders.length + 1}`, planId: 'coins-500', price: plans[0]!.price, status: 'created', createdAt: '2026-11-22T10:00:00Z' };
      orders.unshift(order);
      return { data: order };
    },
    'POST /api/payment/pay': (call) => {
      orders.find((order) => order.id === call.body?.orderId)!.status = 'succeeded';
      return { data: { orderId: call.body?.orderId, status: 'succeeded' } };
    },
    'GET /api/payment': () => ({ data: { items: orders, page: 1, size: 20, hasMore: false, subscription: null } }),
  };
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const call: Sent = {
        method: init.method ?? 'GET',
        url,
        path: new URL(url, 'http://localhost').pathname,
        headers: init.headers as Record<string, string>,
        body: init.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : null,
      };
      sent.push(call);
      const route = routes[`${call.method} ${call.path}`];
      if (!route) return new Response('Not Found', { status: 404 });
      const answer = route(call);
      if (answer === 'no answer') throw new TypeError('Failed to fetch');
      return new Response(JSON.stringify({ code: 200, message: 'ok', data: answer.data }), { headers: { 'content-type': 'application/json' } });
    }),
  );
}

type TokenAnswer = { token: { id: string } } | { error: { type: string; code: string; message: string } };

/**
 * Stripe.js as far as the card form uses it. Its Card Element stands in for Stripe's iframe: the card
 * number is typed into an input inside the mount box, where nothing of ours should ever read it.
 */
function fakeStripeJs(answers: TokenAnswer[] = [{ token: { id: 'tok_visa' } }]) {
  const listeners: ((change: StripeCardChange) => void)[] = [];
  let box: HTMLElement | null = null;
  const card = {
    mount: vi.fn((container: HTMLElement) => {
      box = container;
      const input = document.createElement('input');
      input.name = 'cardnumber';
      input.value = CARD;
      container.appendChild(input);
    }),
    on: vi.fn((_event: 'change', listener: (change: StripeCardChange) => void) => void listeners.push(listener)),
    focus: vi.fn(),
    destroy: vi.fn(() => box?.replaceChildren()),
  };
  const create = vi.fn(() => card);
  const client = { elements: vi.fn(() => ({ create })), createToken: vi.fn(async () => answers.shift() ?? { token: { id: 'tok_visa' } }) };
  const Stripe = vi.fn<StripeJs>(() => client);
  return {
    Stripe,
    client,
    create,
    card,
    /** What Stripe's iframe reports as the buyer types. */
    change: (change: Partial<StripeCardChange>) => listeners.forEach((listener) => listener({ empty: false, complete: false, ...change })),
  };
}

function renderAt(path: string) {
  const router = createMemoryRouter(
    [
      { path: '/order/easy', Component: OrderEasyPage },
      { path: '/order/result', Component: OrderResultPage },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nProvider>
        <RouterProvider router={router} />
      </I18nProvider>
    </QueryClientProvider>,
  );
  return router;
}

const calls = (method: string, path: string) => sent.filter((call) => call.method === method && call.path === path);
const type = (label: string, value: string) => fireEvent.input(screen.getByLabelText(label), { target: { value } });
const stripeScripts = () => document.querySelectorAll(`script[src="${STRIPE_JS_URL}"]`);

async function openForm() {
  renderAt('/order/easy?planId=coins-500');
  const pay = await screen.findByRole('button', { name: 'Pay $4.99' });
  await vi.waitFor(() => expect((pay as HTMLButtonElement).disabled).toBe(false));
  type('First name', 'Ada');
  type('Last name', 'Lovelace');
  return pay;
}

beforeEach(() => {
  localStorage.clear();
  keepUserToken('user-token-1');
  sent = [];
  serve();
});

afterEach(() => {
  cleanup();
  document.head.querySelectorAll('script').forEach((script) => script.remove());
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('paying by card with Stripe configured', () => {
  it("puts Stripe's Card Element where the card fields were, and pays with Stripe's token only", async () => {
    const stripe = fakeStripeJs();
    vi.stubGlobal('Stripe', stripe.Stripe);
    const router = renderAt('/order/easy?planId=coins-500');
    const group = await screen.findByRole('group', { name: 'Card' });
    await vi.waitFor(() => expect(stripe.card.mount).toHaveBeenCalledWith(group.querySelector('.stripe-card')));
    expect(stripe.Stripe).toHaveBeenCalledWith('pk_test_cliffhanger', { locale: 'en' });
    expect(stripe.create).toHaveBeenCalledWith('card', expect.any(Object));
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
    expect(stripe.client.createToken).toHaveBeenCalledExactlyOnceWith(stripe.card, { name: 'Ada Lovelace' });
    expect(calls('POST', '/api/payment/pay')[0]!.body).toEqual({ orderId: 'o1', paymentToken: 'tok_visa', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' });
    expect(calls('POST', '/sandbox/v1/tokens')).toHaveLength(0);
    expect(stripeScripts()).toHaveLength(0);
    for (const call of sent) expect(`${call.url} ${JSON.stringify(call.body)}`).not.toContain(CARD);
  });

  it("shows Stripe's message at the card when it refuses the card, and pays nothing", async () => {
    const stripe = fakeStripeJs([{ error: { type: 'validation_error', code: 'incomplete_number', message: 'Your card number is incomplete.' } }]);
    vi.stubGlobal('Stripe', stripe.Stripe);
    fireEvent.click(await openForm());

    const group = await screen.findByRole('group', { name: 'Card' });
    expect((await within(group).findByRole('alert')).textContent).toBe('Your card number is incomplete.');
    expect(group.getAttribute('aria-describedby')).toBe(within(group).getByRole('alert').id);
    expect(calls('POST', '/api/payment/pay')).toHaveLength(0);
    expect(screen.getByRole('heading', { name: 'Pay by card' })).toBeTruthy();
  });

  it("shows what Stripe says while the card is typed, and clears it once Stripe is satisfied", async () => {
    const stripe = fakeStripeJs();
    vi.stubGlobal('Stripe', stripe.Stripe);
    await openForm();
    const group = screen.getByRole('group', { name: 'Card' });

    stripe.change({ error: { type: 'validation_error', code: 'invalid_number', message: 'Your card number is invalid.' } });
    expect((await within(group).findByRole('alert')).textContent).toBe('Your card number is invalid.');
    // The payer's fields are still checked by the form itself; the card's message stands.
    type('Last name', '');
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    expect(await screen.findByText('Please enter your last name')).toBeTruthy();
    expect(within(group).getByRole('alert').textContent).toBe('Your card number is invalid.');
    expect(stripe.client.createToken).not.toHaveBeenCalled();

    stripe.change({ complete: true });
    await vi.waitFor(() => expect(within(group).queryByRole('alert')).toBeNull());
  });

  it('follows the bank authentication page when the payment needs it', async () => {
    routes['POST /api/payment/pay'] = (call) => ({ data: { orderId: call.body?.orderId, status: 'requires_action', actionUrl: 'https://hooks.stripe.com/3d_secure_2/hosted?id=1' } });
    vi.stubGlobal('Stripe', fakeStripeJs().Stripe);
    const pay = await openForm();
    const assign = vi.fn();
    vi.stubGlobal('location', { assign, href: 'http://localhost/order/easy', pathname: '/order/easy', hostname: 'localhost' });
    fireEvent.click(pay);
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('https://hooks.stripe.com/3d_secure_2/hosted?id=1'));
  });

  it('repeats an unanswered payment with the same token and key, and asks Stripe again once the card changed', async () => {
    routes['POST /api/payment/pay'] = () => 'no answer';
    const stripe = fakeStripeJs([{ token: { id: 'tok_first' } }, { token: { id: 'tok_second' } }]);
    vi.stubGlobal('Stripe', stripe.Stripe);
    fireEvent.click(await openForm());
    expect(await screen.findByText('We did not hear back about your payment. Press Pay again: you will not be charged twice.')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    await vi.waitFor(() => expect(calls('POST', '/api/payment/pay')).toHaveLength(2));
    const [first, again] = calls('POST', '/api/payment/pay');
    expect(again!.body).toEqual(first!.body);
    expect(again!.headers['Idempotency-Key']).toBe(first!.headers['Idempotency-Key']);
    expect(stripe.client.createToken).toHaveBeenCalledTimes(1);

    await screen.findByRole('button', { name: 'Pay $4.99' });
    stripe.change({ complete: true });
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    await vi.waitFor(() => expect(calls('POST', '/api/payment/pay')).toHaveLength(3));
    const changed = calls('POST', '/api/payment/pay')[2]!;
    expect(changed.body).toMatchObject({ orderId: 'o1', paymentToken: 'tok_second' });
    expect(changed.headers['Idempotency-Key']).not.toBe(first!.headers['Idempotency-Key']);
  });
});

describe('loading Stripe.js', () => {
  it('adds its script from js.stripe.com once, on this page, and mounts the card when it has loaded', async () => {
    renderAt('/order/easy?planId=coins-500');
    await screen.findByText('Loading the secure card field...');
    await vi.waitFor(() => expect(stripeScripts()).toHaveLength(1));
    expect((screen.getByRole('button', { name: 'Pay $4.99' }) as HTMLButtonElement).disabled).toBe(true);

    const stripe = fakeStripeJs();
    vi.stubGlobal('Stripe', stripe.Stripe);
    stripeScripts()[0]!.dispatchEvent(new Event('load'));
    await vi.waitFor(() => expect(stripe.card.mount).toHaveBeenCalledTimes(1));
    expect(screen.queryByText('Loading the secure card field...')).toBeNull();
    expect(stripeScripts()).toHaveLength(1);
  });

  it('says so when it cannot load, and tries again on request', async () => {
    renderAt('/order/easy?planId=coins-500');
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
    routes['GET /api/payment/config'] = () => ({ data: { provider: 'sandbox', tokenUrl: '/sandbox/v1/tokens' } });
    renderAt('/order/easy?planId=coins-500');
    await screen.findByRole('button', { name: 'Pay $4.99' });
    expect(screen.getByLabelText('Card number')).toBeTruthy();
    expect(screen.queryByRole('group', { name: 'Card' })).toBeNull();
    expect(stripeScripts()).toHaveLength(0);
  });
});
