import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdminPlan, AuditEntry } from './api';
import { changedFields } from './audit/diff';
import { calls, lastCall, member, ok, open, refused, serve, type Answer, type Call } from './consoleTestKit';
import { centsOf } from './plans/PlanForm';

// The pages of who may do what: the audit log, the plans (an admin's to change), people and roles.

beforeEach(() => localStorage.clear());
const { credential: adminCredential, roleAnswer: adminRole } = member('admin');
const { credential: operatorCredential, roleAnswer: operatorRole } = member('operator');
const emptyPage = ok({ items: [], page: 1, size: 20, hasMore: false });
const nav = () => within(screen.getByRole('navigation', { name: 'Console sections' }));

/** GET /api/admin/users: the signed-in member's own role by id, else `other`. */
const users = (own: Answer, other: (call: Call) => Answer = () => emptyPage) => (call: Call) =>
  call.query.get('query')?.startsWith('usr_') ? own : other(call);

describe('sections by role', () => {
  it('an admin sees People; an operator does not, and sees plans without the buttons that change them', async () => {
    const plans = ok([{ id: 'coins-500', kind: 'coins', title: '500 coins', price: { amount: 499, currency: 'USD' }, coins: 500, bonusCoins: 50, active: true, position: 1, retiredAt: null }]);
    serve({ 'GET /api/admin/users': users(adminRole), 'GET /api/admin/plans': plans });
    open('/admin/plans', adminCredential);
    await nav().findByRole('link', { name: 'People' });
    await screen.findByRole('button', { name: 'Edit plan coins-500' });
    screen.getByRole('button', { name: 'New plan' });
    cleanup();

    serve({ 'GET /api/admin/users': users(operatorRole), 'GET /api/admin/plans': plans });
    open('/admin/plans', operatorCredential);
    await screen.findByText('500 coins + 50 bonus');
    await screen.findByText('Only an admin may create, change or retire plans.');
    expect(screen.queryByRole('button', { name: 'Edit plan coins-500' })).toBeNull();
    nav().getByRole('link', { name: 'Audit log' });
    nav().getByRole('link', { name: 'Plans' });
    expect(nav().queryByRole('link', { name: 'People' })).toBeNull();
    expect(lastCall('GET', '/api/admin/users')!.query.get('query')).toBe('usr_operator');
  });

  it('a session kept from before the role pages learns its id from GET /api/user', async () => {
    serve({ 'GET /api/user': ok({ id: 'usr_admin', kind: 'member' }), 'GET /api/admin/users': users(adminRole), 'GET /api/admin/orders': emptyPage });
    open('/admin', { kind: 'session', token: 'T'.repeat(43), email: 'admin@example.com' });
    await nav().findByRole('link', { name: 'People' });
  });

  it('the admin token acts as an admin', async () => {
    serve({ 'GET /api/admin/orders': emptyPage });
    open('/admin', { kind: 'adminToken', token: 'secret' });
    await nav().findByRole('link', { name: 'People' });
    expect(calls.some((call) => call.path === '/api/admin/users')).toBe(false);
  });
});

describe('the audit log', () => {
  const entries: AuditEntry[] = [
    {
      id: 'a1',
      at: '2026-11-27T10:00:00.000Z',
      actor: 'usr_admin',
      action: 'plan.update',
      target: 'plan:vip-month',
      before: { id: 'vip-month', title: 'VIP', price: { amount: 999, currency: 'USD' }, active: true },
      after: { id: 'vip-month', title: 'VIP', price: { amount: 1299, currency: 'USD' }, active: false },
    },
    { id: 'a2', at: '2026-11-26T10:00:00.000Z', actor: 'token', action: 'plan.create', target: 'plan:coins-100', before: null, after: { id: 'coins-100', coins: 100 } },
    { id: 'a3', at: '2026-11-25T10:00:00.000Z', actor: 'cli', action: 'user.role', target: 'user:usr_7', before: { role: 'viewer' }, after: { role: 'operator' } },
  ];

  it('filters by who, action, target and dates, pages, and shows each change field by field', async () => {
    serve({
      'GET /api/admin/users': users(operatorRole),
      'GET /api/admin/audit': (call) => ok({ items: entries, page: Number(call.query.get('page')), size: 20, hasMore: call.query.get('page') === '1' }),
    });
    open('/admin/audit', operatorCredential);
    await screen.findByRole('heading', { name: 'Audit log' });
    const changes = await screen.findByLabelText('Changes of plan.update on plan:vip-month');
    // Only what changed: the price and the state, not the id or title.
    expect(within(changes).getAllByRole('term').map((term) => term.textContent)).toEqual(['price', 'active']);
    expect(within(changes).getByText('{"amount":999,"currency":"USD"}').closest('del')).not.toBeNull();
    expect(within(changes).getByText('{"amount":1299,"currency":"USD"}').closest('ins')).not.toBeNull();
    const creation = screen.getByLabelText('Changes of plan.create on plan:coins-100');
    expect(within(creation).getAllByRole('term').map((term) => term.textContent)).toEqual(['id', 'coins']);
    screen.getByText('Created');
    screen.getByText('The admin token');
    screen.getByText('The admin script');
    expect(screen.getByRole('link', { name: 'user:usr_7' }).getAttribute('href')).toBe('/admin/users/usr_7');
    expect(screen.getByRole('link', { name: 'usr_admin' }).getAttribute('href')).toBe('/admin/users/usr_admin');

    fireEvent.change(screen.getByLabelText('Who'), { target: { value: 'usr_admin' } });
    fireEvent.change(screen.getByLabelText('Action'), { target: { value: 'plan.update' } });
    fireEvent.change(screen.getByLabelText('Target'), { target: { value: 'plan:vip-month' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    await vi.waitFor(() => expect(lastCall('GET', '/api/admin/audit')!.query.get('actor')).toBe('usr_admin'));
    expect(Object.fromEntries(lastCall('GET', '/api/admin/audit')!.query)).toEqual({
      actor: 'usr_admin',
      action: 'plan.update',
      target: 'plan:vip-month',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
      page: '1',
      size: '20',
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Next page' }));
    await vi.waitFor(() => expect(lastCall('GET', '/api/admin/audit')!.query.get('page')).toBe('2'));
    expect(lastCall('GET', '/api/admin/audit')!.query.get('target')).toBe('plan:vip-month');
  });

  it('says when nothing matches, and why a call failed', async () => {
    serve({ 'GET /api/admin/users': users(operatorRole), 'GET /api/admin/audit': emptyPage });
    open('/admin/audit', operatorCredential);
    await screen.findByText('No changes match.');
    cleanup();
    serve({ 'GET /api/admin/users': users(operatorRole), 'GET /api/admin/audit': refused(403, 'Only operators may do this') });
    open('/admin/audit', operatorCredential);
    expect((await screen.findByRole('alert')).textContent).toContain('needs the operator or admin role');
  });

  it('a diff names each changed field once; a list changed is one change of the whole', () => {
    expect(changedFields({ a: 1, b: [1, 2] }, { a: 1, b: [2, 1], c: 'x' })).toEqual([
      { field: 'b', before: [1, 2], after: [2, 1] },
      { field: 'c', before: undefined, after: 'x' },
    ]);
    expect(changedFields({ sessions: 3 }, null)).toEqual([{ field: 'sessions', before: 3, after: undefined }]);
    expect(changedFields(['e1', 'e2'], ['e2', 'e1'])).toEqual([{ field: '', before: ['e1', 'e2'], after: ['e2', 'e1'] }]);
    expect(changedFields({ role: 'viewer' }, { role: 'viewer' })).toEqual([]);
  });
});

describe('plans', () => {
  const vip: AdminPlan = { id: 'vip-month', kind: 'vip', title: 'VIP month', price: { amount: 999, currency: 'USD' }, periodDays: 30, periodMonths: 1, active: true, position: 2, retiredAt: null };
  const old: AdminPlan = { ...vip, id: 'vip-old', title: 'Old VIP', periodMonths: undefined, periodDays: 90, active: false, retiredAt: '2026-10-01T00:00:00.000Z' };

  it('an admin creates a coin pack, checked before sending and refused at its field by the API', async () => {
    let created: unknown = null;
    serve({
      'GET /api/admin/users': users(adminRole),
      'GET /api/admin/plans': () => ok([vip, old]),
      'POST /api/admin/plans': (call) => {
        if ((call.body as { id: string }).id === 'taken') return refused(409, 'This id is taken');
        created = call.body;
        return ok({ ...(call.body as object), price: { amount: 299, currency: 'USD' }, retiredAt: null });
      },
    });
    open('/admin/plans', adminCredential);
    await screen.findByText('VIP month');
    screen.getByText('1 months, billed on the same day');
    screen.getByText('90 days');
    screen.getByText(/Retired/);
    expect(screen.queryByRole('button', { name: 'Edit plan vip-old' })).toBeNull();

    fireEvent.click(await screen.findByRole('button', { name: 'New plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'New plan' });
    expect(document.activeElement).toBe(within(dialog).getByLabelText('Plan id'));
    fireEvent.change(within(dialog).getByLabelText('Plan id'), { target: { value: 'Bad Id' } });
    fireEvent.change(within(dialog).getByLabelText('Price (USD)'), { target: { value: '0.20' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create the plan' }));
    within(dialog).getByText('Lower-case letters, digits and dashes, starting with a letter or digit.');
    within(dialog).getByText('Enter a price of at least 0.50, like 4.99.');
    within(dialog).getByText('A coin pack gives at least 1 coin.');
    expect(within(dialog).getByLabelText('Price (USD)').getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((call) => call.method === 'POST')).toBe(false);

    fireEvent.change(within(dialog).getByLabelText('Plan id'), { target: { value: 'taken' } });
    fireEvent.change(within(dialog).getByLabelText('Title'), { target: { value: '300 coins' } });
    fireEvent.change(within(dialog).getByLabelText('Price (USD)'), { target: { value: '2,99' } });
    fireEvent.change(within(dialog).getByLabelText('Coins'), { target: { value: '300' } });
    fireEvent.change(within(dialog).getByLabelText('Bonus coins'), { target: { value: '30' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create the plan' }));
    await within(dialog).findByText('This id is taken');
    fireEvent.change(within(dialog).getByLabelText('Plan id'), { target: { value: 'coins-300' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create the plan' }));
    await screen.findByText('Plan coins-300 created.');
    expect(created).toEqual({ id: 'coins-300', kind: 'coins', title: '300 coins', price: { amount: 299 }, coins: 300, bonusCoins: 30, position: 0, active: true });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('an admin edits a VIP plan, sending only what changed, and retires it after a confirmation', async () => {
    serve({
      'GET /api/admin/users': users(adminRole),
      'GET /api/admin/plans': ok([vip]),
      'PUT /api/admin/plans/vip-month': (call) => ok({ ...vip, ...(call.body as object) }),
      'POST /api/admin/plans/vip-month/retire': ok({ ...vip, active: false, retiredAt: '2026-11-27T10:00:00.000Z' }),
    });
    open('/admin/plans', adminCredential);
    fireEvent.click(await screen.findByRole('button', { name: 'Edit plan vip-month' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit plan vip-month' });
    expect(within(dialog).queryByLabelText('Plan id')).toBeNull();
    expect(within(dialog).queryByLabelText('Coins')).toBeNull();
    fireEvent.change(within(dialog).getByLabelText('Price (USD)'), { target: { value: '12.99' } });
    fireEvent.change(within(dialog).getByLabelText('Period (days)'), { target: { value: '31' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await screen.findByText('Plan vip-month saved.');
    expect(lastCall('PUT', '/api/admin/plans/vip-month')!.body).toEqual({ price: { amount: 1299 }, periodDays: 31 });

    fireEvent.click(screen.getByRole('button', { name: 'Retire plan vip-month' }));
    const confirm = await screen.findByRole('dialog', { name: 'Retire plan vip-month?' });
    expect(calls.some((call) => call.path.endsWith('/retire'))).toBe(false);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Yes, retire vip-month' }));
    await screen.findByText('Plan vip-month retired.');
  });

  it('reads a typed price as cents', () => {
    expect([centsOf('4.99'), centsOf('4,9'), centsOf('5'), centsOf('4.999'), centsOf('-1'), centsOf('')]).toEqual([499, 490, 500, null, null, null]);
  });
});

describe('people and roles', () => {
  const ada = { id: 'usr_ada', kind: 'member', email: 'ada@example.com', emailVerified: true, role: 'viewer', createdAt: '2026-11-01T00:00:00.000Z', registeredAt: '2026-11-01T00:00:00.000Z' };
  const bob = { ...ada, id: 'usr_bob', email: 'bob@example.com', role: 'operator' };

  it('gives a role by email, lists who holds each, and takes one away after a confirmation', async () => {
    const roles: Record<string, string> = { usr_ada: 'viewer', usr_bob: 'operator' };
    const people = [ada, bob];
    const page = (items: unknown[]) => ok({ items, page: 1, size: 20, hasMore: false });
    serve({
      'GET /api/admin/users': users(adminRole, (call) => {
        const query = call.query.get('query');
        const role = call.query.get('role');
        return page(people.filter((user) => (query ? user.email.includes(query.toLowerCase()) : true) && (role ? roles[user.id] === role : true)).map((user) => ({ ...user, role: roles[user.id] })));
      }),
      'PUT /api/admin/users/usr_ada/role': (call) => {
        roles.usr_ada = (call.body as { role: string }).role;
        return ok({ ...ada, role: roles.usr_ada });
      },
      'PUT /api/admin/users/usr_bob/role': (call) => {
        roles.usr_bob = (call.body as { role: string }).role;
        return ok({ ...bob, role: roles.usr_bob });
      },
    });
    open('/admin/people', adminCredential);
    await screen.findByRole('heading', { name: 'People and roles' });
    const operators = await screen.findByRole('region', { name: 'Operators' });
    await within(operators).findByRole('link', { name: 'bob@example.com' });
    within(await screen.findByRole('region', { name: 'Admins' })).getByText('Nobody holds this role.');

    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'nobody@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Give the role' }));
    await screen.findByText('No member has the email nobody@example.com.');
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'not an email' } });
    fireEvent.click(screen.getByRole('button', { name: 'Give the role' }));
    screen.getByText('Enter the member’s email.');
    expect(screen.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');

    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'ADA@example.com' } });
    fireEvent.change(screen.getByLabelText('Role'), { target: { value: 'admin' } });
    fireEvent.click(screen.getByRole('button', { name: 'Give the role' }));
    await screen.findByText('ADA@example.com is now Admin.');
    expect(lastCall('PUT', '/api/admin/users/usr_ada/role')!.body).toEqual({ role: 'admin' });
    await within(screen.getByRole('region', { name: 'Admins' })).findByRole('link', { name: 'ada@example.com' });

    fireEvent.click(within(operators).getByRole('button', { name: 'Take away the Operator role from bob@example.com' }));
    const confirm = await screen.findByRole('dialog', { name: 'Take the Operator role from bob@example.com?' });
    expect(calls.some((call) => call.path === '/api/admin/users/usr_bob/role')).toBe(false);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Yes, take the role away' }));
    await screen.findByText('bob@example.com no longer holds a role.');
    expect(lastCall('PUT', '/api/admin/users/usr_bob/role')!.body).toEqual({ role: 'viewer' });
    await within(operators).findByText('Nobody holds this role.');
  });
});
