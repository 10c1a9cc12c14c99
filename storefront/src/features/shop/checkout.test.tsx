import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Order, Plan } from '../../api/types';
import { ORDER_POLL } from './queries';
import { renderShop, serveShop, type, type Shop } from './shopTesting';

const plans: Plan[] = [
  { id: 'coins-500', kind: 'coins', title: 'Starter', price: { amount: 499, currency: 'USD' }, coins: 500, bonusCoins: 50 },
  { id: 'coins-first', kind: 'coins', title: 'Welcome pack', price: { amount: 99, currency: 'USD' }, coins: 300, firstPurchaseOnly: true },
  { id: 'vip-week', kind: 'vip', title: 'VIP Weekly', price: { amount: 699, currency: 'USD' }, periodDays: 7 },
  { id: 'vip-year', kind: 'vip', title: 'VIP Yearly', price: { amount: 9999, currency: 'USD' }, periodDays: 365 },
];

const CARD = '4242424242424242';

/**
 * The gateway and the sandbox tokenizer as docs/api.md describes them, in memory. Each test changes
 * the routes it is about; every call is kept in `shop.sent`.
 */
let shop: Shop;

const calls = (method: string, path: string) => shop.calls(method, path);

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
  shop = serveShop({
    plans,
    coins: 10,
    provider: {
      'GET /api/payment/config': () => ({ data: { provider: 'sandbox', tokenUrl: '/sandbox/v1/tokens' } }),
      'POST /sandbox/v1/tokens': () => ({ status: 200, body: { id: `tok_${shop.sent.length}`, card: { brand: 'Visa', last4: '4242', exp_month: 12, exp_year: 2034 } } }),
      'POST /api/payment/pay': (call) => {
        const order = shop.orders.find((entry) => entry.id === call.body?.orderId)!;
        order.status = 'succeeded';
        shop.user = { ...shop.user, coins: shop.user.coins + 550, bonusCoins: 50 };
        return { data: { orderId: order.id, status: 'succeeded' } };
      },
    },
    fallback: (call) => ({ code: 404, message: `No such call: ${call.method} ${call.path}` }),
  });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the plans on /shopping', () => {
  it('lists coin packs with their bonus, the first-purchase offer first, and VIP plans with their period', async () => {
    renderShop('/shopping');
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
    const router = renderShop('/shopping');
    fireEvent.click(await screen.findByRole('button', { name: 'Buy · $4.99' }));
    await screen.findByRole('heading', { name: 'Pay by card' });
    expect(router.state.location.search).toBe('?planId=coins-500');
    expect(screen.getByRole('region', { name: 'Order summary' }).textContent).toContain('500 coins + 50 bonus');
    expect(calls('POST', '/api/payment/order')).toHaveLength(0);
  });
});

describe('paying by card on /order/easy', () => {
  it('says what is wrong with each field, in words, before asking anyone', async () => {
    renderShop('/order/easy?planId=coins-500');
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
    expect(shop.sent.filter((call) => call.method === 'POST')).toHaveLength(0);
  });

  it('makes the order, tokenizes the card with the provider, pays with the token only, and shows the coins bought', async () => {
    const router = renderShop('/order/easy?planId=coins-500');
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
    for (const call of shop.sent.filter((entry) => entry.path.startsWith('/api'))) {
      expect(`${call.url} ${JSON.stringify(call.body)}`).not.toContain(CARD);
      expect(JSON.stringify(call.body ?? {})).not.toContain('"123"');
    }
  });

  it('sends the browser to the bank when the payment needs authentication', async () => {
    shop.routes['POST /api/payment/pay'] = (call) => ({
      data: { orderId: call.body?.orderId, status: 'requires_action', actionUrl: '/sandbox/v1/challenge/pay_3155' },
    });
    renderShop('/order/easy?planId=vip-week');
    await screen.findByRole('button', { name: 'Pay $6.99' });
    const leave = catchLeaving();
    fillCard({ 'Card number': '4000 0025 0000 3155' });
    fireEvent.click(screen.getByRole('button', { name: 'Pay $6.99' }));
    await vi.waitFor(() => expect(leave).toHaveBeenCalledWith('/sandbox/v1/challenge/pay_3155'));
    expect(screen.getByRole('button', { name: 'Paying...' }).hasAttribute('disabled')).toBe(true);
  });

  it('lands a declined card on /order/result with the reason', async () => {
    shop.routes['POST /api/payment/pay'] = (call) => {
      shop.orders.find((entry) => entry.id === call.body?.orderId)!.status = 'failed';
      return { data: { orderId: call.body?.orderId, status: 'failed', message: 'Your card was declined.' } };
    };
    const router = renderShop('/order/easy?planId=coins-500');
    await screen.findByRole('button', { name: 'Pay $4.99' });
    fillCard({ 'Card number': '4000000000000002' });
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));

    expect(await screen.findByRole('heading', { name: 'Payment failed' })).toBeTruthy();
    expect(screen.getByText('Your card was declined.')).toBeTruthy();
    expect(router.state.location.search).toBe('?orderId=o1&status=failed');
    expect((await screen.findByRole('link', { name: 'Try again' })).getAttribute('href')).toBe('/order/easy?planId=coins-500');
  });

  it('shows a card the tokenizer refuses at the field it is about, and pays nothing', async () => {
    shop.routes['POST /sandbox/v1/tokens'] = () => ({
      status: 402,
      body: { error: { code: 'invalid_expiry_year', message: "Your card's expiration year is invalid." } },
    });
    renderShop('/order/easy?planId=coins-500');
    await screen.findByRole('button', { name: 'Pay $4.99' });
    fillCard();
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));
    expect(await screen.findByText('This expiry date is not valid.')).toBeTruthy();
    expect(calls('POST', '/api/payment/pay')).toHaveLength(0);
  });

  it('repeats an unanswered payment with the same key and token, and pays a changed form under a new key', async () => {
    shop.routes['POST /api/payment/pay'] = () => 'no answer';
    renderShop('/order/easy?planId=coins-500');
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
    shop.routes['POST /api/payment/paypal'] = (call) => ({ data: { approveUrl: `/sandbox/paypal/pp_${String(call.body?.orderId)}` } });
    renderShop('/order/easy?planId=vip-year');
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
    shop.orders = [{ ...created(), status: 'canceled' }];
    renderShop('/order/result?orderId=o7&status=canceled');
    expect(await screen.findByRole('heading', { name: 'Payment canceled' })).toBeTruthy();
    expect(screen.getByText('Nothing was charged.')).toBeTruthy();
  });

  it('looks at an unsettled order again until it succeeds, then refreshes the wallet', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    shop.orders = [created()];
    renderShop('/order/result?orderId=o7');
    expect(await screen.findByRole('heading', { name: 'Confirming your payment' })).toBeTruthy();
    const userCallsBefore = calls('GET', '/api/user').length;

    shop.orders[0]!.status = 'succeeded';
    shop.user = { ...shop.user, coins: 560 };
    await act(() => vi.advanceTimersByTimeAsync(ORDER_POLL.intervalMs));
    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    await vi.waitFor(() => expect(calls('GET', '/api/user').length).toBeGreaterThan(userCallsBefore));
    expect(await screen.findByText('550 coins were added. Your balance: 560 coins.')).toBeTruthy();
  });

  it('reports a succeeded order’s purchase once, with its value, not again when the page shows it again', async () => {
    // An order of its own: this page remembers every order it has reported, earlier tests' too.
    shop.orders = [{ ...created(), id: 'o8', status: 'succeeded' }];
    renderShop('/order/result?orderId=o8');
    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    const purchases = () => calls('GET', '/api/statics.png').map((call) => new URL(call.url, 'http://localhost').searchParams).filter((query) => query.get('event') === 'purchase');
    await vi.waitFor(() => expect(purchases()).toHaveLength(1));
    expect(Object.fromEntries(purchases()[0]!)).toMatchObject({ orderId: 'o8', planId: 'coins-500', value: '4.99', currency: 'USD', eventId: 'order:o8' });

    cleanup();
    renderShop('/order/result?orderId=o8');
    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    await vi.waitFor(() => expect(calls('GET', '/api/payment').length).toBeGreaterThan(1));
    expect(purchases()).toHaveLength(1);
  });

  it('reports no purchase for an order that did not succeed', async () => {
    shop.orders = [{ ...created(), status: 'failed' }];
    renderShop('/order/result?orderId=o7&status=failed');
    expect(await screen.findByRole('heading', { name: 'Payment failed' })).toBeTruthy();
    expect(calls('GET', '/api/statics.png').filter((call) => call.url.includes('event=purchase'))).toEqual([]);
  });

  it('stops looking after a few tries and says the payment is pending', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    shop.orders = [created()];
    renderShop('/order/result?orderId=o7');
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
    shop.user = { ...shop.user, vip: { planId: 'vip-week', renewsAt: renews, cancelAtPeriodEnd: false } };
    const subscription = (cancelAtPeriodEnd: boolean) => ({ planId: 'vip-week', status: 'active', renewsAt: renews, cancelAtPeriodEnd });
    shop.routes['POST /api/payment/cancel'] = () => {
      shop.user = { ...shop.user, vip: { planId: 'vip-week', renewsAt: renews, cancelAtPeriodEnd: true } };
      return { data: subscription(true) };
    };
    shop.routes['POST /api/payment/resume'] = () => {
      shop.user = { ...shop.user, vip: { planId: 'vip-week', renewsAt: renews, cancelAtPeriodEnd: false } };
      return { data: subscription(false) };
    };
    renderShop('/shopping');
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

describe('a VIP whose renewal failed, on /shopping', () => {
  const failedOn = '2026-12-06T12:00:00Z';
  const renewedTo = '2027-01-06T12:00:00Z';
  let subscription: { planId: string; status: string; renewsAt: string; cancelAtPeriodEnd: boolean };

  beforeEach(() => {
    shop.user = { ...shop.user, vip: { planId: 'vip-week', renewsAt: failedOn, cancelAtPeriodEnd: false } };
    subscription = { planId: 'vip-week', status: 'past_due', renewsAt: failedOn, cancelAtPeriodEnd: false };
    shop.routes['GET /api/payment'] = () => ({ data: { items: shop.orders, page: 1, size: 20, hasMore: false, subscription } });
  });

  const cardForm = async () => screen.findByRole('form', { name: 'Your VIP renewal failed' });

  it('says the renewal failed and charges a new card through POST /api/payment/method; the viewer is VIP again', async () => {
    shop.routes['POST /api/payment/method'] = () => {
      subscription = { ...subscription, status: 'active', renewsAt: renewedTo };
      shop.user = { ...shop.user, vip: { planId: 'vip-week', renewsAt: renewedTo, cancelAtPeriodEnd: false } };
      return { data: { ...subscription, payment: { status: 'succeeded' } } };
    };
    renderShop('/shopping');
    await cardForm();
    expect(screen.getByText(/We could not charge your card for VIP Weekly on December 6, 2026/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Update card and pay' }));
    expect(await screen.findByText('Please enter your card number')).toBeTruthy();
    expect(calls('POST', '/api/payment/method')).toHaveLength(0);

    type('Card number', CARD);
    type('Expiry (MM/YY)', '12/34');
    type('CVV', '123');
    fireEvent.click(screen.getByRole('button', { name: 'Update card and pay' }));
    expect(await screen.findByText('Card updated: you are VIP again. Renews on January 6, 2027.')).toBeTruthy();
    const [tokenCall] = calls('POST', '/sandbox/v1/tokens');
    expect(tokenCall!.body).toMatchObject({ card: { number: CARD, exp_month: 12, exp_year: 2034, cvc: '123' } });
    const [method] = calls('POST', '/api/payment/method');
    expect(method!.body).toEqual({ paymentToken: expect.stringMatching(/^tok_/) });
    expect(JSON.stringify(method!.body)).not.toContain(CARD);
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Your VIP renewal failed' })).toBeNull());
    expect(await screen.findByText('Renews on January 6, 2027')).toBeTruthy();
  });

  it('shows a declined card clearly and keeps the form for another card', async () => {
    shop.routes['POST /api/payment/method'] = () => ({ data: { ...subscription, payment: { status: 'failed', message: 'Your card was declined.' } } });
    renderShop('/shopping');
    await cardForm();
    type('Card number', '4000000000000002');
    type('Expiry (MM/YY)', '12/34');
    type('CVV', '123');
    fireEvent.click(screen.getByRole('button', { name: 'Update card and pay' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Your new card was declined. Your card was declined.');
    expect(screen.getByRole('button', { name: 'Update card and pay' })).toBeTruthy();
  });

  it('sends the browser to the bank when the new card needs authentication', async () => {
    const assign = catchLeaving();
    shop.routes['POST /api/payment/method'] = () => ({ data: { ...subscription, payment: { status: 'requires_action', actionUrl: 'https://bank.example/3ds' } } });
    renderShop('/shopping');
    await cardForm();
    type('Card number', CARD);
    type('Expiry (MM/YY)', '12/34');
    type('CVV', '123');
    fireEvent.click(screen.getByRole('button', { name: 'Update card and pay' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://bank.example/3ds'));
  });
});

describe('the language of the calls', () => {
  it('asks every call in the interface language chosen, so mails come in it', async () => {
    localStorage.setItem('cliffhanger.language', 'fy');
    renderShop('/shopping');
    await screen.findByRole('region', { name: 'Packs de pièces' });
    expect(calls('GET', '/api/plan')[0]!.headers['accept-language']).toBe('fr');
  });
});
