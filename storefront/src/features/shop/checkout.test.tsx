import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../i18n/I18nProvider';
import { keepUserToken } from '../../lib/attribution';
import { OrderEasyPage } from './OrderEasyPage';
import { OrderResultPage } from './OrderResultPage';
import { ShoppingPage } from './ShoppingPage';

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

let sent: Sent[];

const plans = [
  { id: 'coins-500', kind: 'coins', title: 'Starter', price: { amount: 499, currency: 'USD' }, coins: 500 },
  { id: 'vip-week', kind: 'vip', title: 'VIP Weekly', price: { amount: 699, currency: 'USD' }, periodDays: 7 },
];
const order = { id: 'o1', planId: 'coins-500', price: { amount: 499, currency: 'USD' }, createdAt: '2026-11-22T10:00:00Z' };

const envelope = (data: unknown, code = 200) => ({ code, message: code === 200 ? 'ok' : 'No such call', data });

/** The payment provider and the payment service as docs/api.md describes them; not built yet, so faked here. */
function serve(paymentsBuilt: boolean) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = new URL(url, 'http://localhost').pathname;
      const body = init.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : null;
      sent.push({ method: init.method ?? 'GET', path, headers: init.headers as Record<string, string>, body });
      const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
      if (path === '/api/user') return json(envelope({ id: 'u1', kind: 'member', email: 'ada@example.com', coins: 10, vip: null }));
      if (!paymentsBuilt && path !== '/sandbox/v1/tokens') return json(envelope(null, 404), 404);
      if (path === '/api/plan') return json(envelope(plans));
      if (path === '/api/payment/order') return json(envelope({ ...order, status: 'created' }));
      if (path === '/sandbox/v1/tokens') return json({ id: 'tok_visa', card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 } });
      if (path === '/api/payment/pay') return json(envelope({ orderId: 'o1', status: 'succeeded' }));
      if (path === '/api/payment') return json(envelope({ items: [{ ...order, status: 'succeeded' }], page: 1, size: 20, hasMore: false, subscription: null }));
      return json(envelope([]));
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
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

beforeEach(() => {
  localStorage.clear();
  keepUserToken('user-token-1');
  sent = [];
  vi.spyOn(HTMLImageElement.prototype, 'src', 'set').mockImplementation(() => undefined);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('buying coins by card', () => {
  it('creates an order, tokenizes the card with the provider and pays with the token only', async () => {
    serve(true);
    renderAt('/shopping');
    expect(await screen.findByText('Your membership renews every 7 days. Cancel at any time to avoid future charges.')).toBeTruthy();
    fireEvent.click(await screen.findByRole('button', { name: 'Buy · $4.99' }));

    await screen.findByRole('heading', { name: 'Pay by card' });
    fireEvent.click(screen.getByRole('button', { name: /^Pay/ }));
    expect(await screen.findByText('Please enter your card number')).toBeTruthy();
    expect(sent.some((call) => call.path === '/sandbox/v1/tokens')).toBe(false);

    type('Card number', '4242424242424242');
    type('Expiry (MM/YY)', '12/30');
    type('CVV', '123');
    type('First name', 'Ada');
    type('Last name', 'Lovelace');
    fireEvent.click(screen.getByRole('button', { name: 'Pay $4.99' }));

    expect(await screen.findByRole('heading', { name: 'Payment successful' })).toBeTruthy();
    const orderCall = sent.find((call) => call.path === '/api/payment/order')!;
    expect(orderCall.body).toMatchObject({ planId: 'coins-500' });
    const tokenCall = sent.find((call) => call.path === '/sandbox/v1/tokens')!;
    expect(tokenCall.body).toMatchObject({ card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } });
    const payCall = sent.find((call) => call.path === '/api/payment/pay')!;
    expect(payCall.body).toMatchObject({ orderId: 'o1', paymentToken: 'tok_visa', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' });
    expect(JSON.stringify(payCall.body)).not.toContain('4242424242424242');
    expect(payCall.headers['Idempotency-Key']).toMatch(/.{16,}/);
  });

  it('says plainly that payment is not available while the payment calls are missing', async () => {
    serve(false);
    renderAt('/shopping');
    expect(await screen.findByText('Payment is not available yet. You can keep watching the free episodes.')).toBeTruthy();
  });
});
