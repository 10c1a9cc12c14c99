import { fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CREDENTIAL_KEY } from './api';
import { calls, ok, open as openAt, serve, signedIn as operator } from './consoleTestKit';
import { CONSOLE_TEXTS } from './texts';

const order = {
  id: 'ord_1',
  planId: 'coins-500',
  title: '500 coins',
  price: { amount: 499, currency: 'USD' },
  status: 'succeeded',
  createdAt: '2026-11-20T10:00:00.000Z',
  user: { id: 'usr_1', email: 'ada@example.com' },
  payments: [{ id: 'pay_1', status: 'succeeded', succeededAt: '2026-11-20T10:00:05.000Z', failureReason: null }],
  refunded: { amount: 0, currency: 'USD' },
  refunds: [],
};

/** The console at `path`, signed in as an operator, or at the sign-in. */
const open = (path: string, signedIn = true) => openAt(path, signedIn ? operator : undefined);

beforeEach(() => {
  localStorage.clear();
});

describe('the console sign-in', () => {
  it('signs a member in with email and password and keeps the session under its own key', async () => {
    serve({
      'POST /api/user/login': { ...ok({ id: 'usr_9', kind: 'member', email: 'op@example.com' }), headers: { 'x-user-token': 'S'.repeat(43) } },
      'GET /api/admin/orders': ok({ items: [], page: 1, size: 20, hasMore: false }),
    });
    open('/admin', false);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'op@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'correct-horse-9' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByText('No orders match.');
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/api/user/login', body: { email: 'op@example.com', password: 'correct-horse-9' } });
    const orders = calls.find((call) => call.path === '/api/admin/orders')!;
    expect(orders.headers['x-user-token']).toBe('S'.repeat(43));
    expect(JSON.parse(localStorage.getItem(CREDENTIAL_KEY)!)).toMatchObject({ kind: 'session', email: 'op@example.com' });
    // The viewer's own session on the storefront is neither read nor replaced.
    expect(localStorage.getItem('cliffhanger.userToken')).toBeNull();
    screen.getByText('Signed in as op@example.com');
  });

  it('says why a sign-in failed', async () => {
    serve({ 'POST /api/user/login': { body: { code: 500, message: 'Incorrect email or password', data: null } } });
    open('/admin', false);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'op@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'wrong' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Incorrect email or password');
  });

  it('takes the admin token for automation, sent as a bearer token', async () => {
    serve({ 'GET /api/admin/orders': ok({ items: [], page: 1, size: 20, hasMore: false }) });
    open('/admin', false);
    fireEvent.change(screen.getByLabelText('Admin token'), { target: { value: 'secret-admin-token' } });
    fireEvent.click(screen.getByRole('button', { name: 'Use the admin token' }));
    await screen.findByText('No orders match.');
    expect(calls[0]!.headers.authorization).toBe('Bearer secret-admin-token');
  });

  it('goes back to the sign-in when the session has ended (401)', async () => {
    serve({ 'GET /api/admin/orders': { status: 401, body: { code: 401, message: 'Please sign in', data: null } } });
    open('/admin');
    await screen.findByRole('heading', { name: 'Sign in to the console' });
    expect(localStorage.getItem(CREDENTIAL_KEY)).toBeNull();
  });
});

describe('orders', () => {
  it('searches by email, status and dates, pages, and refunds part of an order after a confirmation', async () => {
    let refunded = false;
    serve({
      'GET /api/admin/orders': (call) =>
        ok({ items: [refunded ? { ...order, status: 'partially_refunded' } : order], page: Number(call.query.get('page')), size: 20, hasMore: call.query.get('page') === '1' }),
      'POST /api/admin/orders/ord_1/refund': () => {
        refunded = true;
        return ok({ ...order, status: 'partially_refunded', refunded: { amount: 200, currency: 'USD' }, reversed: { coinsTaken: 200, unlocksRevoked: 0, vipEnded: false } });
      },
    });
    open('/admin');
    await screen.findByText('ada@example.com');
    fireEvent.change(screen.getByLabelText('Buyer email'), { target: { value: 'ada@example.com' } });
    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'succeeded' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    await vi.waitFor(() => expect(calls.at(-1)!.query.get('email')).toBe('ada@example.com'));
    const search = calls.at(-1)!;
    expect(Object.fromEntries(search.query)).toEqual({
      email: 'ada@example.com',
      status: 'succeeded',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
      page: '1',
      size: '20',
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Next page' }));
    await vi.waitFor(() => expect(calls.at(-1)!.query.get('page')).toBe('2'));

    fireEvent.click(await screen.findByRole('button', { name: 'ord_1' }));
    const details = await screen.findByRole('dialog', { name: 'Order ord_1' });
    fireEvent.click(within(details).getByLabelText('Part of it'));
    fireEvent.change(within(details).getByLabelText('Amount (in USD)'), { target: { value: '2.00' } });
    // No reason: not sent.
    fireEvent.click(within(details).getByRole('button', { name: 'Review the refund' }));
    within(details).getByText('Please say why.');
    fireEvent.change(within(details).getByLabelText('Reason'), { target: { value: 'Charged twice' } });
    fireEvent.click(within(details).getByRole('button', { name: 'Review the refund' }));
    const confirm = await screen.findByRole('dialog', { name: 'Refund $2.00 of order ord_1?' });
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Yes, refund $2.00' }));
    await screen.findByText('Refunded. Coins taken back: 200; unlocks revoked: 0; VIP ended: no.');
    expect(calls.find((call) => call.method === 'POST')).toMatchObject({ path: '/api/admin/orders/ord_1/refund', body: { amount: 200, reason: 'Charged twice' } });
  });

  it('a whole refund sends no amount', async () => {
    serve({
      'GET /api/admin/orders': ok({ items: [order], page: 1, size: 20, hasMore: false }),
      'POST /api/admin/orders/ord_1/refund': ok({ ...order, status: 'refunded', reversed: { coinsTaken: 500, unlocksRevoked: 2, vipEnded: false } }),
    });
    open('/admin');
    fireEvent.click(await screen.findByRole('button', { name: 'ord_1' }));
    const details = await screen.findByRole('dialog', { name: 'Order ord_1' });
    fireEvent.change(within(details).getByLabelText('Reason'), { target: { value: 'Asked for it' } });
    fireEvent.click(within(details).getByRole('button', { name: 'Review the refund' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Yes, refund $4.99' }));
    await screen.findByText('Refunded. Coins taken back: 500; unlocks revoked: 2; VIP ended: no.');
    expect(calls.find((call) => call.method === 'POST')!.body).toEqual({ reason: 'Asked for it' });
  });

  it('a viewer without the role is told so', async () => {
    serve({ 'GET /api/admin/orders': { status: 403, body: { code: 403, message: 'Forbidden', data: null } } });
    open('/admin');
    expect((await screen.findByRole('alert')).textContent).toContain('needs the operator or admin role');
  });
});

describe('a user', () => {
  it('shows the wallet, ledger, unlocks, VIP and sessions; ends the sessions and grants coins', async () => {
    serve({
      'GET /api/admin/users/usr_1': ok({
        id: 'usr_1',
        kind: 'member',
        email: 'ada@example.com',
        role: 'viewer',
        createdAt: '2026-11-01T00:00:00.000Z',
        wallet: {
          balance: 320,
          paidCoins: 300,
          bonusCoins: 20,
          bonusLots: [],
          ledger: { items: [{ id: 'l1', delta: 500, reason: 'order:ord_1', createdAt: '2026-11-20T10:00:05.000Z' }], page: 1, size: 20, hasMore: false },
          unlocks: [{ episodeId: 'ep_7', unlockedAt: '2026-11-21T10:00:00.000Z' }],
        },
        subscription: { planId: 'vip-month', renewsAt: '2026-12-20T10:00:00.000Z', cancelAtPeriodEnd: false },
        sessions: [{ createdAt: '2026-11-20T09:00:00.000Z', lastUsedAt: '2026-11-27T09:00:00.000Z' }],
      }),
      'POST /api/admin/users/usr_1/sessions/revoke': ok({ revoked: 1 }),
      'POST /api/admin/users/usr_1/grants': ok({ granted: { coins: 50 } }),
    });
    open('/admin/users/usr_1');
    await screen.findByRole('heading', { name: 'User ada@example.com' });
    screen.getByText('320');
    screen.getByText(/order:ord_1/);
    screen.getByText('ep_7');
    screen.getByText(/vip-month · Renews/);
    fireEvent.click(screen.getByRole('button', { name: 'Sign out everywhere' }));
    await screen.findByText('1 sessions ended.');
    fireEvent.change(screen.getByLabelText('Coins'), { target: { value: '50' } });
    fireEvent.click(screen.getByRole('button', { name: 'Grant' }));
    screen.getByText('Enter coins or VIP days, and a reason.');
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: 'Sorry for the outage' } });
    fireEvent.click(screen.getByRole('button', { name: 'Grant' }));
    await screen.findByText('Granted.');
    expect(calls.find((call) => call.path.endsWith('/grants'))!.body).toEqual({ coins: 50, reason: 'Sorry for the outage' });
  });
});

describe('the console texts', () => {
  it('are written in every language, with the same placeholders as English', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
    for (const [language, texts] of Object.entries(CONSOLE_TEXTS)) {
      for (const [key, english] of Object.entries(CONSOLE_TEXTS.en)) {
        const text = texts[key as keyof typeof texts];
        expect(text, `${language} ${key}`).toBeTruthy();
        expect(placeholders(text), `${language} ${key}`).toEqual(placeholders(english));
      }
    }
  });
});
