import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Order, Plan, User } from '../../api/types';
import { I18nProvider } from '../../i18n/I18nProvider';
import { keepUserToken } from '../../lib/attribution';
import { OrderEasyPage } from './OrderEasyPage';
import { OrderResultPage } from './OrderResultPage';
import { ORDER_POLL } from './queries';
import { ShoppingPage } from './ShoppingPage';

interface Sent {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

/** What a route answers: envelope data (code 200), another envelope code, a plain JSON body (the tokenizer), or no answer. */
type Answer = { data: unknown } | { code: number; message: string; data?: unknown } | { plain: unknown; status: number } | 'no answer';

const plans: Plan[] = [
  { id: 'coins-500', kind: 'coins', title: 'Starter', price: { amount: 499, currency: 'USD' }, coins: 500, bonusCoins: 50 },
  { id: 'coins-first', kind: 'coins', title: 'Welcome pack', price: { amount: 99, currency: 'USD' }, coins: 300, firstPurchaseOnly: true },
  { id: 'vip-week', kind: 'vip', title: 'VIP Weekly', price: { amount: 699, currency: 'USD' }, periodDays: 7 },
  { id: 'vip-year', kind: 'vip', title: 'VIP Yearly', price: { amount: 9999, currency: 'USD' }, periodDays: 365 },
];

const CARD = '4242424242424242';

let sent: Sent[];
let user: User;
let orders: Order[];
let routes: Record<string, (call: Sent) => Answer>;

/**
 * The gateway and the sandbox tokenizer as docs/api.md describes them, in memory. Each test changes
 * the routes it is about; every call is kept in `sent`.
 */
function serve() {
  user = { id: 'u1', kind: 'member', email: 'ada@example.com', coins: 10, bonusCoins: 0, vip: null, settings: { autoUnlock: false } };
  orders = [];
  routes = {
    'GET /api/user': () => ({ data: user }),
    'GET /api/plan': () => ({ data: plans }),
    'GET /api/payment/config': () => ({ data: { provider: 'sandbox', tokenUrl: '/sandbox/v1/tokens' } }),
    'POST /api/payment/order': (call) => {
      const plan = plans.find((entry) => entry.id === call.body?.planId)!;
      const order: Order = { id: `o${orders.length + 1}`, planId: plan.id, price: plan.price, status: 'created', createdAt: '2026-11-22T10:00:00Z' };
      orders.unshift(order);
      return { data: order };
    },
    'POST /sandbox/v1/tokens': () => ({ plain: { id: `tok_${sent.length}`, card: { brand: 'Visa', last4: '4242', exp_month: 12, exp_year: 2034 } }, status: 200 }),
    'POST /api/payment/pay': (call) => {
      const order = orders.find((entry) => entry.id === call.body?.orderId)!;
      order.status = 'succeeded';
      user = { ...user, coins: user.coins + 550, bonusCoins: 50 };
      return { data: { orderId: order.id, status: 'succeeded' } };
    },
    'GET /api/payment': () => ({ data: { items: orders, page: 1, size: 20, hasMore: false, subscription: null } }),
  };
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const parsed = new URL(url, 'http://localhost');
      const call: Sent = {
        method: init.method ?? 'GET',
        url,
        path: parsed.pathname,
        headers: init.headers as Record<string, string>,
        body: init.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : null,
      };
      sent.push(call);
      const route = routes[`${call.method} ${call.path}`];
      const answer: Answer = route ? route(call) : { code: 404, message: `No such call: ${call.method} ${call.path}` };
      if (answer === 'no answer') throw new TypeError('Failed to fetch');
      const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
      if ('plain' in answer) return json(answer.plain, answer.status);
      if ('code' in answer) return json({ code: answer.code, message: answer.message, data: answer.data ?? null });
      return json({ code: 200, message: 'ok', data: answer.data });
    }),
  );
}

function renderAt(path: string) {
  const router = createMemoryRouter(
    [
      { path: '/shopping', Component: ShoppingPage },
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

function fillCard(overrides: Partial<Record<'Card number' | 'Expiry (MM/YY)' | 'CVV' | 'First name' | 'Last name', string>> = {}) {
  const values = { 'Card number': CARD, 'Expiry (MM/YY)': '12/34', CVV: '123', 'First name': 'Ada', 'Last name': 'Lovelace', ...overrides };
  for (const [label, value] of Object.entries(values)) type(label, value);
}

/** window.location.assign, the one way out of the app to a provider's page; jsdom cannot leave. */
function catchLeaving() {
  const assign = vi.fn();
  vi.stubGlobal('location', { assign, href: 'http://localhost/order/easy', pathname: '/order/easy', hostname: 'localhost' });
  return assign;
}

beforeEach(() => {
  localStorage.clear();
  keepUserToken('user-token-1');
  sent = [];
  serve();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the plans on /shopping', () => {
  it('lists coin packs with their bonus, the first-purchase offer first, and VIP plans with their period', async () => {
    renderAt('/shopping');
    const coins = await screen.findByRole('region', { name: 'Coin packs' });
    const packs = within(coins).getAllByRole('listitem');
    expect(packs[0]!.textContent).toContain('First purchase offer');
    expect(packs[0]!.className).toContain('plan--offer');
    expect(within(packs[1]!).getByText('+50 bonus')).toBeTruthy();
    expect(within(packs[1]!).queryByText('First purchase offer')).toBeNull();

    const vip = screen.getByRole('region', { name: 'VIP membership' });
    expect(within(vip).getByText('per week')).toBeTruthy();
    expect(within(vip).getByText('per year')).toBeTruthy();
    expect(within(vip).getByText('Your membership renews every 7 days. Cancel at any time to avoid future charges.')).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/not available|No such call/);
  });

  it('opens the card page for the chosen plan without making an order yet', async () => {
    const router = renderAt('/shopping');
    fireEvent.click(await screen.findByRole('button', { name: 'Buy · $4.99' }));
    await screen.findByRole('heading', { name: 'Pay by card' });
    expect(router.state.location.search).toBe('?planId=coins-500');
    expect(screen.getByRole('region', { name: 'Order summary' }).textContent).toContain('500 coins + 50 bonus');
    expect(calls('POST', '/api/payment/order')).toHaveLength(0);
  });
});

describe('paying by card on /order/easy', () => {
  it('says what is wrong with each field, in words, before asking anyone', async () => {
    renderAt('/order/easy?planId=coins-500');
    fireEvent.click(await screen.findByRole('button', { name: 'Pay $4.99' }));
    expect(await screen.findByText('Please enter your card number')).toBeTruthy();
    expect(screen.getByText('Please enter the expiry as MM/YY')).toBeTruthy();
    expect(screen.getByText('Please enter the CVV')).toBeTruthy();
    expect(screen.getByText('Please enter your first name')).toBeTruthy();
    expect(screen.getByText('Please enter your last name')).toBeTruthy();
    expect(screen.getByLabelText('Card number').getAttribute('aria-invalid')).toBe('true');

    fillCard({ 'Card number': '4242424242424241', 'Expiry (MM/YY)': '01/20', CVV: '12' });
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    expect(await screen.findByText('This card number is not valid. Check it and try again.')).toBeTruthy();
    expect(screen.getByText('This card has expired.')).toBeTruthy();
    expect(screen.getByText('The CVV is the 3 digits on the back of your card.')).toBeTruthy();
    expect(sent.filter((call) => call.method === 'POST')).toHaveLength(0);
  });

  it('makes the order, tokenizes the card with the provider, pays with the token only, and shows the coins bought', async () => {
    const router = renderAt('/order/easy?planId=coins-500');
    await screen.findByRole('button', { name: 'Pay $4.99' });
    await waitFor(() => expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@example.com'));
    fillCard();
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));

    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    expect(router.state.location.search).toBe('?orderId=o1&status=succeeded');
    expect(await screen.findByText('550 coins were added. Your balance: 560 coins.')).toBeTruthy();
    expect(calls('POST', '/api/payment/order')[0]!.body).toMatchObject({ planId: 'coins-500' });
    const token = calls('POST', '/sandbox/v1/tokens')[0]!;
    expect(token.body).toMatchObject({ card: { number: CARD, exp_month: 12, exp_year: 2034, cvc: '123' } });
    const pay = calls('POST', '/api/payment/pay')[0]!;
    expect(pay.body).toMatchObject({ orderId: 'o1', paymentToken: expect.stringMatching(/^tok_/), email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' });
    expect(pay.headers['Idempotency-Key']).toMatch(/.{16,}/);
    for (const call of sent.filter((entry) => entry.path.startsWith('/api'))) {
      expect(`${call.url} ${JSON.stringify(call.body)}`).not.toContain(CARD);
      expect(JSON.stringify(call.body ?? {})).not.toContain('"123"');
    }
  });

  it('sends the browser to the bank when the payment needs authentication', async () => {
    routes['POST /api/payment/pay'] = (call) => ({
      data: { orderId: call.body?.orderId, status: 'requires_action', actionUrl: '/sandbox/v1/challenge/pay_3155' },
    });
    renderAt('/order/easy?planId=vip-week');
    await screen.findByRole('button', { name: 'Pay $6.99' });
    const leave = catchLeaving();
    fillCard({ 'Card number': '4000 0025 0000 3155' });
    fireEvent.click(screen.getByRole('button', { name: 'Pay $6.99' }));
    await vi.waitFor(() => expect(leave).toHaveBeenCalledWith('/sandbox/v1/challenge/pay_3155'));
    expect(screen.getByRole('button', { name: 'Paying...' }).hasAttribute('disabled')).toBe(true);
  });

  it('lands a declined card on /order/result with the reason', async () => {
    routes['POST /api/payment/pay'] = (call) => {
      orders.find((entry) => entry.id === call.body?.orderId)!.status = 'failed';
      return { data: { orderId: call.body?.orderId, status: 'failed', message: 'Your card was declined.' } };
    };
    const router = renderAt('/order/easy?planId=coins-500');
    await screen.findByRole('button', { name: 'Pay $4.99' });
    fillCard({ 'Card number': '4000000000000002' });
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));

    expect(await screen.findByRole('heading', { name: 'Payment failed' })).toBeTruthy();
    expect(screen.getByText('Your card was declined.')).toBeTruthy();
    expect(router.state.location.search).toBe('?orderId=o1&status=failed');
    expect((await screen.findByRole('link', { name: 'Try again' })).getAttribute('href')).toBe('/order/easy?planId=coins-500');
  });

  it('shows a card the tokenizer refuses at the field it is about, and pays nothing', async () => {
    routes['POST /sandbox/v1/tokens'] = () => ({
      plain: { error: { code: 'invalid_expiry_year', message: "Your card's expiration year is invalid." } },
      status: 402,
    });
    renderAt('/order/easy?planId=coins-500');
    await screen.findByRole('button', { name: 'Pay $4.99' });
    fillCard();
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    expect(await screen.findByText('This expiry date is not valid.')).toBeTruthy();
    expect(calls('POST', '/api/payment/pay')).toHaveLength(0);
  });

  it('repeats an unanswered payment with the same key and token, and pays a changed form under a new key', async () => {
    routes['POST /api/payment/pay'] = () => 'no answer';
    renderAt('/order/easy?planId=coins-500');
    await screen.findByRole('button', { name: 'Pay $4.99' });
    fillCard();
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    expect(await screen.findByText('We did not hear back about your payment. Press Pay again: you will not be charged twice.')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    await vi.waitFor(() => expect(calls('POST', '/api/payment/pay')).toHaveLength(2));
    const [first, again] = calls('POST', '/api/payment/pay');
    expect(again!.headers['Idempotency-Key']).toBe(first!.headers['Idempotency-Key']);
    expect(again!.body).toEqual(first!.body);
    expect(calls('POST', '/sandbox/v1/tokens')).toHaveLength(1);
    expect(calls('POST', '/api/payment/order')).toHaveLength(1);

    await screen.findByRole('button', { name: 'Pay $4.99' });
    type('Last name', 'Byron');
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    await vi.waitFor(() => expect(calls('POST', '/api/payment/pay')).toHaveLength(3));
    const changed = calls('POST', '/api/payment/pay')[2]!;
    expect(changed.headers['Idempotency-Key']).not.toBe(first!.headers['Idempotency-Key']);
    expect(changed.body).toMatchObject({ orderId: 'o1', lastName: 'Byron' });
    expect(calls('POST', '/sandbox/v1/tokens')).toHaveLength(2);
  });

  it('pays with PayPal by sending the browser to the approve page, with no card involved', async () => {
    routes['POST /api/payment/paypal'] = (call) => ({ data: { approveUrl: `/sandbox/paypal/pp_${String(call.body?.orderId)}` } });
    renderAt('/order/easy?planId=vip-year');
    await screen.findByRole('button', { name: 'Pay $99.99' });
    const leave = catchLeaving();
    fireEvent.click(screen.getByRole('button', { name: 'Pay with PayPal' }));
    await vi.waitFor(() => expect(leave).toHaveBeenCalledWith('/sandbox/paypal/pp_o1'));
    expect(calls('POST', '/api/payment/order')[0]!.body).toMatchObject({ planId: 'vip-year' });
    expect(calls('POST', '/api/payment/paypal')[0]!.body).toMatchObject({ orderId: 'o1' });
    expect(calls('POST', '/sandbox/v1/tokens')).toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Going to PayPal...' }).hasAttribute('disabled')).toBe(true);
  });
});

describe('the result on /order/result', () => {
  const created = (): Order => ({ id: 'o7', planId: 'coins-500', price: { amount: 499, currency: 'USD' }, status: 'created', createdAt: '2026-11-22T10:00:00Z' });

  it('says canceled when PayPal sends the buyer back canceled', async () => {
    orders = [{ ...created(), status: 'canceled' }];
    renderAt('/order/result?orderId=o7&status=canceled');
    expect(await screen.findByRole('heading', { name: 'Payment canceled' })).toBeTruthy();
    expect(screen.getByText('Nothing was charged.')).toBeTruthy();
  });

  it('looks at an unsettled order again until it succeeds, then refreshes the wallet', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    orders = [created()];
    renderAt('/order/result?orderId=o7');
    expect(await screen.findByRole('heading', { name: 'Confirming your payment' })).toBeTruthy();
    const userCallsBefore = calls('GET', '/api/user').length;

    orders[0]!.status = 'succeeded';
    user = { ...user, coins: 560 };
    await act(() => vi.advanceTimersByTimeAsync(ORDER_POLL.intervalMs));
    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    await vi.waitFor(() => expect(calls('GET', '/api/user').length).toBeGreaterThan(userCallsBefore));
    expect(await screen.findByText('550 coins were added. Your balance: 560 coins.')).toBeTruthy();
  });

  it('reports a succeeded order’s purchase once, with its value, not again when the page shows it again', async () => {
    // An order of its own: this page remembers every order it has reported, earlier tests' too.
    orders = [{ ...created(), id: 'o8', status: 'succeeded' }];
    renderAt('/order/result?orderId=o8');
    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    const purchases = () => calls('GET', '/api/statics.png').map((call) => new URL(call.url, 'http://localhost').searchParams).filter((query) => query.get('event') === 'purchase');
    await vi.waitFor(() => expect(purchases()).toHaveLength(1));
    expect(Object.fromEntries(purchases()[0]!)).toMatchObject({ orderId: 'o8', planId: 'coins-500', value: '4.99', currency: 'USD', eventId: 'order:o8' });

    cleanup();
    renderAt('/order/result?orderId=o8');
    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    await vi.waitFor(() => expect(calls('GET', '/api/payment').length).toBeGreaterThan(1));
    expect(purchases()).toHaveLength(1);
  });

  it('reports no purchase for an order that did not succeed', async () => {
    orders = [{ ...created(), status: 'failed' }];
    renderAt('/order/result?orderId=o7&status=failed');
    expect(await screen.findByRole('heading', { name: 'Payment failed' })).toBeTruthy();
    expect(calls('GET', '/api/statics.png').filter((call) => call.url.includes('event=purchase'))).toEqual([]);
  });

  it('stops looking after a few tries and says the payment is pending', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    orders = [created()];
    renderAt('/order/result?orderId=o7');
    await screen.findByRole('heading', { name: 'Confirming your payment' });
    for (let look = 0; look < ORDER_POLL.looks + 3; look++) await act(() => vi.advanceTimersByTimeAsync(ORDER_POLL.intervalMs));
    expect(await screen.findByRole('heading', { name: 'Payment pending' })).toBeTruthy();
    expect(calls('GET', '/api/payment')).toHaveLength(ORDER_POLL.looks);
    expect(screen.getByRole('button', { name: 'Check again' })).toBeTruthy();
  });
});

describe('the VIP plan on /shopping', () => {
  const renews = '2026-12-06T12:00:00Z';

  it('cancels only after a confirm step, keeps access until the renewal date, and resumes', async () => {
    user = { ...user, vip: { planId: 'vip-week', renewsAt: renews, cancelAtPeriodEnd: false } };
    const subscription = (cancelAtPeriodEnd: boolean) => ({ planId: 'vip-week', status: 'active', renewsAt: renews, cancelAtPeriodEnd });
    routes['POST /api/payment/cancel'] = () => {
      user = { ...user, vip: { planId: 'vip-week', renewsAt: renews, cancelAtPeriodEnd: true } };
      return { data: subscription(true) };
    };
    routes['POST /api/payment/resume'] = () => {
      user = { ...user, vip: { planId: 'vip-week', renewsAt: renews, cancelAtPeriodEnd: false } };
      return { data: subscription(false) };
    };
    renderAt('/shopping');
    const plan = await screen.findByRole('region', { name: 'Your plan' });
    expect(within(plan).getByText('VIP Weekly', { exact: false })).toBeTruthy();
    expect(within(plan).getByText('Renews on December 6, 2026')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Subscribe: VIP Yearly' }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(within(plan).getByRole('button', { name: 'Cancel subscription' }));
    expect(within(plan).getByText('Cancel your VIP membership? You keep VIP until December 6, 2026 and will not be charged again.')).toBeTruthy();
    fireEvent.click(within(plan).getByRole('button', { name: 'Keep VIP' }));
    expect(calls('POST', '/api/payment/cancel')).toHaveLength(0);

    fireEvent.click(within(plan).getByRole('button', { name: 'Cancel subscription' }));
    fireEvent.click(within(plan).getByRole('button', { name: 'Yes, cancel' }));
    expect(await within(plan).findByText('Your membership is canceled. You have access until December 6, 2026.')).toBeTruthy();
    expect(within(plan).getByText('Canceled. You have VIP access until December 6, 2026.')).toBeTruthy();
    expect(calls('POST', '/api/payment/cancel')).toHaveLength(1);

    fireEvent.click(within(plan).getByRole('button', { name: 'Resume membership' }));
    expect(await within(plan).findByText('Welcome back! Your membership renews on December 6, 2026.')).toBeTruthy();
    expect(within(plan).getByText('Renews on December 6, 2026')).toBeTruthy();
    expect(calls('POST', '/api/payment/resume')).toHaveLength(1);
  });
});
