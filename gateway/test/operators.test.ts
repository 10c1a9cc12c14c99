import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@cliffhanger/platform';
import { eventually, startSite, type Site } from '@cliffhanger/platform/testing';
import { setRoleByEmail } from '@cliffhanger/user';
import { registry } from '../src/registry.ts';

// Operators are members with a role (issue 29) and every change they make is audited (issue 25).
let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: registry.modules, env: { DEMO: '0' } });
});
afterAll(() => site?.close());

const password = 'correct horse 1';

/** A member holding `role`, logged in after the grant: a fresh session, nothing cached of it. */
async function member(role: Role) {
  const email = `${role}-${randomUUID()}@example.com`;
  const registered = await site.call('POST', '/api/user/register', { body: { email, password, confirmPassword: password } });
  expect(registered.code).toBe(200);
  if (role !== 'viewer') await setRoleByEmail(site.platform.database, email, role);
  const login = await site.call('POST', '/api/user/login', { body: { email, password } });
  expect(login.code).toBe(200);
  return { id: registered.data.id as string, email, token: login.headers.get('x-user-token')! };
}

const as = (token: string) => ({
  get: (path: string) => site.call('GET', path, { token }),
  post: (path: string, body: unknown = {}) => site.call('POST', path, { token, body }),
  put: (path: string, body: unknown) => site.call('PUT', path, { token, body }),
});

/** The audit log's entries of `action` on `target`, once the consumer stored them. */
async function audited(action: string, target: string, count = 1) {
  return eventually(async () => {
    const page = await site.admin('GET', `/api/admin/audit?action=${action}&size=50`);
    const items = (page.data.items as { target: string }[]).filter((item) => item.target === target);
    return items.length >= count ? items : null;
  });
}

const newPlan = () => ({ id: `pack-${randomUUID().slice(0, 8)}`, kind: 'coins', title: 'Operator pack', price: { amount: 299 }, coins: 300, bonusCoins: 30 });

describe('roles', () => {
  it('a viewer gets 403 and nobody 401 on every admin call', async () => {
    const viewer = as((await member('viewer')).token);
    const calls: [string, string][] = [
      ['GET', '/api/admin/users'],
      ['GET', '/api/admin/audit'],
      ['GET', '/api/admin/orders'],
      ['GET', '/api/admin/plans'],
      ['POST', '/api/admin/plans'],
      ['POST', '/api/admin/users/anyone/sessions/revoke'],
      ['POST', '/api/admin/users/anyone/grants'],
      ['PUT', '/api/admin/users/anyone/role'],
      ['POST', '/api/admin/videos'],
      ['GET', '/api/admin/events/dead'],
    ];
    for (const [method, path] of calls) {
      const answer = method === 'GET' ? await viewer.get(path) : method === 'PUT' ? await viewer.put(path, { role: 'admin' }) : await viewer.post(path);
      expect(answer.code, `${method} ${path}`).toBe(403);
      expect((await site.call(method, path, method === 'GET' ? {} : { body: {} })).code, `${method} ${path} anonymous`).toBe(401);
    }
  });

  it('an operator works on users, orders and content, but cannot refund, change plans or roles', async () => {
    const operator = as((await member('operator')).token);
    const viewer = await member('viewer');
    expect((await operator.get('/api/admin/users')).code).toBe(200);
    expect((await operator.get(`/api/admin/users/${viewer.id}`)).code).toBe(200);
    expect((await operator.get('/api/admin/orders')).code).toBe(200);
    expect((await operator.get('/api/admin/plans')).code).toBe(200);
    expect((await operator.get('/api/admin/audit')).code).toBe(200);
    expect((await operator.post('/api/admin/videos', { title: `Operator series ${randomUUID()}` })).code).toBe(200);

    expect((await operator.put(`/api/admin/users/${viewer.id}/role`, { role: 'operator' })).code).toBe(403);
    expect((await operator.post('/api/admin/plans', newPlan())).code).toBe(403);
    expect((await operator.put('/api/admin/plans/coins-100', { title: 'Cheaper' })).code).toBe(403);
    expect((await operator.post('/api/admin/plans/coins-100/retire')).code).toBe(403);
    expect((await operator.post('/api/admin/orders/any-order/refund', { reason: 'asked' })).code).toBe(403);
    expect((await site.admin('GET', `/api/admin/users/${viewer.id}`)).data.role).toBe('viewer');
  });

  it('an admin changes roles; the role holds at the next call and is audited with who did it', async () => {
    const admin = await member('admin');
    const target = await member('viewer');
    const changed = await as(admin.token).put(`/api/admin/users/${target.id}/role`, { role: 'operator' });
    expect(changed.data).toMatchObject({ id: target.id, role: 'operator' });
    expect((await as(target.token).get('/api/admin/users')).code).toBe(200);

    expect((await as(admin.token).put(`/api/admin/users/${target.id}/role`, { role: 'boss' })).code).toBe(422);
    expect((await as(admin.token).put('/api/admin/users/no-such-user/role', { role: 'operator' })).code).toBe(404);
    const [entry] = await audited('user.role', `user:${target.id}`);
    expect(entry).toMatchObject({ actor: admin.id, action: 'user.role', before: { role: 'viewer' }, after: { role: 'operator' }, at: expect.any(String) });
  });

  it('ADMIN_TOKEN acts as an admin, audited as "token"', async () => {
    const target = await member('viewer');
    expect((await site.admin('PUT', `/api/admin/users/${target.id}/role`, { body: { role: 'admin' } })).data.role).toBe('admin');
    const [entry] = await audited('user.role', `user:${target.id}`);
    expect(entry).toMatchObject({ actor: 'token', before: { role: 'viewer' }, after: { role: 'admin' } });
    const byToken = await site.admin('GET', '/api/admin/audit?actor=token&size=50');
    expect(byToken.data.items.every((item: { actor: string }) => item.actor === 'token')).toBe(true);
  });

  it('lists who holds a role, and the audit log of one target', async () => {
    const operator = await member('operator');
    const viewer = await member('viewer');
    const holding = (query: string) => site.admin('GET', `/api/admin/users?role=operator&size=50${query}`);
    expect((await holding(`&query=${encodeURIComponent(operator.email)}`)).data.items).toEqual([expect.objectContaining({ id: operator.id, role: 'operator' })]);
    expect((await holding(`&query=${encodeURIComponent(viewer.email)}`)).data.items).toEqual([]);
    const operators = (await holding('')).data.items as { id: string; role: string }[];
    expect(operators.map((item) => item.id)).toContain(operator.id);
    expect(operators.every((item) => item.role === 'operator')).toBe(true);
    expect((await site.admin('GET', '/api/admin/users?role=viewer')).code).toBe(422);

    const entries = await eventually(async () => {
      const page = await site.admin('GET', `/api/admin/audit?target=${encodeURIComponent(`user:${operator.id}`)}`);
      return page.data.items.length > 0 ? page.data.items : null;
    });
    expect(entries).toEqual([expect.objectContaining({ actor: 'cli', action: 'user.role', target: `user:${operator.id}`, after: { role: 'operator' } })]);
  });
});

describe('users', () => {
  it('finds users by email or id, and shows one with wallet, subscription, sessions and role', async () => {
    const viewer = await member('viewer');
    const byEmail = await site.admin('GET', `/api/admin/users?query=${encodeURIComponent(viewer.email)}`);
    expect(byEmail.data).toMatchObject({ page: 1, size: 20, hasMore: false, items: [{ id: viewer.id, email: viewer.email, kind: 'member', role: 'viewer' }] });
    expect((await site.admin('GET', `/api/admin/users?query=${viewer.id}`)).data.items).toEqual([expect.objectContaining({ id: viewer.id })]);
    expect((await site.admin('GET', '/api/admin/users?size=0')).code).toBe(422);

    const detail = await site.admin('GET', `/api/admin/users/${viewer.id}`);
    expect(detail.data).toMatchObject({
      id: viewer.id,
      role: 'viewer',
      wallet: { balance: 0, paidCoins: 0, bonusCoins: 0, bonusLots: [], ledger: { items: [], page: 1, hasMore: false }, unlocks: [] },
      subscription: null,
    });
    expect(detail.data.sessions.length).toBeGreaterThanOrEqual(1);
    expect((await site.admin('GET', '/api/admin/users/no-such-user')).code).toBe(404);
  });

  it('an operator grants coins with a reason: in the wallet, in the ledger with the reason, audited', async () => {
    const operator = await member('operator');
    const viewer = await member('viewer');
    const grant = await as(operator.token).post(`/api/admin/users/${viewer.id}/grants`, { coins: 40, reason: 'Episode 3 would not play' });
    expect(grant.data).toMatchObject({ granted: { coins: 40, balance: 40, reference: expect.stringMatching(/^grant:/) }, coins: 40, bonusCoins: 40 });
    expect((await site.call('GET', '/api/user', { token: viewer.token })).data.coins).toBe(40);

    const { wallet } = (await site.admin('GET', `/api/admin/users/${viewer.id}?size=5`)).data;
    expect(wallet.ledger.items).toEqual([
      expect.objectContaining({ kind: 'grant', reference: grant.data.granted.reference, bonusDelta: 40, reason: 'Episode 3 would not play', actor: operator.id }),
    ]);
    expect(wallet.bonusLots).toEqual([expect.objectContaining({ coins: 40, remaining: 40, grantedBy: grant.data.granted.reference })]);
    const [entry] = await audited('user.grant', `user:${viewer.id}`);
    expect(entry).toMatchObject({ actor: operator.id, before: { coins: 0 }, after: { coins: 40, granted: 40, reason: 'Episode 3 would not play' } });

    expect((await site.admin('POST', `/api/admin/users/${viewer.id}/grants`, { body: { coins: 10 } })).code).toBe(422);
    expect((await site.admin('POST', `/api/admin/users/${viewer.id}/grants`, { body: { coins: 0, reason: 'none' } })).code).toBe(422);
    expect((await site.admin('POST', `/api/admin/users/${viewer.id}/grants`, { body: { reason: 'nothing said' } })).code).toBe(422);
    expect((await site.admin('POST', '/api/admin/users/no-such-user/grants', { body: { coins: 5, reason: 'x' } })).code).toBe(404);
    expect((await site.call('GET', '/api/user', { token: viewer.token })).data.coins).toBe(40);
    expect((await as(viewer.token).post(`/api/admin/users/${viewer.id}/grants`, { coins: 1000, reason: 'myself' })).code).toBe(403);
  });

  it('an operator grants VIP days with a reason: a VIP of its own for a viewer with none, then the same one extended, each audited', async () => {
    const operator = await member('operator');
    const viewer = await member('viewer');
    const first = await as(operator.token).post(`/api/admin/users/${viewer.id}/grants`, { vipDays: 7, reason: 'Playback broke for a week' });
    expect(first.code).toBe(200);
    const renewsAt = first.data.granted.renewsAt as string;
    expect(Date.parse(renewsAt) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(first.data).toMatchObject({ granted: { vipDays: 7, renewsAt }, vip: { planId: 'vip-granted', renewsAt, cancelAtPeriodEnd: true } });

    // Coins and days in one call: each granted by its own service, each audited.
    const second = await site.admin('POST', `/api/admin/users/${viewer.id}/grants`, { body: { vipDays: 3, coins: 20, reason: 'Still broken' } });
    const extended = new Date(Date.parse(renewsAt) + 3 * 86_400_000).toISOString();
    expect(second.data).toMatchObject({ granted: { vipDays: 3, renewsAt: extended, coins: 20 }, vip: { planId: 'vip-granted', renewsAt: extended }, bonusCoins: 20 });
    expect((await site.call('GET', '/api/payment', { token: viewer.token })).data.subscription).toMatchObject({ planId: 'vip-granted', status: 'active', renewsAt: extended });

    const entries = await audited('user.grant', `user:${viewer.id}`, 3);
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ actor: operator.id, before: { vip: null }, after: expect.objectContaining({ grantedVipDays: 7, reason: 'Playback broke for a week' }) }),
        expect.objectContaining({ actor: 'token', before: { vip: expect.objectContaining({ renewsAt }) }, after: expect.objectContaining({ grantedVipDays: 3, vip: expect.objectContaining({ renewsAt: extended }) }) }),
        expect.objectContaining({ actor: 'token', after: expect.objectContaining({ granted: 20 }) }),
      ]),
    );
    expect((await site.admin('POST', `/api/admin/users/${viewer.id}/grants`, { body: { vipDays: 0, reason: 'none' } })).code).toBe(422);
    expect((await site.admin('POST', '/api/admin/users/no-such-user/grants', { body: { vipDays: 5, reason: 'x' } })).code).toBe(404);
  });

  it('revoking sessions signs the user out everywhere, audited', async () => {
    const viewer = await member('viewer');
    const revoked = await site.admin('POST', `/api/admin/users/${viewer.id}/sessions/revoke`);
    expect(revoked.data.revoked).toBeGreaterThanOrEqual(1);
    const after = await site.call('GET', '/api/user', { token: viewer.token });
    expect(after.data.id).not.toBe(viewer.id);
    const [entry] = await audited('user.sessions.revoke', `user:${viewer.id}`);
    expect(entry).toMatchObject({ actor: 'token', after: { sessions: 0 } });
    expect((await site.admin('GET', `/api/admin/users/${viewer.id}`)).data.sessions).toEqual([]);
  });
});

describe('plans and orders', () => {
  it('an admin creates a plan and retires it: listed and sold until then, audited before and after', async () => {
    const admin = as((await member('admin')).token);
    const plan = newPlan();
    const created = await admin.post('/api/admin/plans', plan);
    expect(created.message).toBe('ok');
    expect(created.data).toMatchObject({ id: plan.id, kind: 'coins', coins: 300, bonusCoins: 30, price: { amount: 299, currency: 'USD' }, active: true, retiredAt: null });
    expect((await admin.post('/api/admin/plans', plan)).code).toBe(409);
    expect((await admin.post('/api/admin/plans', { ...newPlan(), kind: 'vip' })).code).toBe(422);
    expect((await site.call('GET', '/api/plan')).data.map((listed: { id: string }) => listed.id)).toContain(plan.id);

    const retired = await admin.post(`/api/admin/plans/${plan.id}/retire`);
    expect(retired.data).toMatchObject({ id: plan.id, active: false, retiredAt: expect.any(String) });
    expect((await site.call('GET', '/api/plan')).data.map((listed: { id: string }) => listed.id)).not.toContain(plan.id);
    const buyer = await site.guest();
    expect((await site.call('POST', '/api/payment/order', { token: buyer, body: { planId: plan.id } })).code).toBe(404);
    expect((await admin.put(`/api/admin/plans/${plan.id}`, { active: true })).code).toBe(409);
    expect((await admin.post(`/api/admin/plans/${plan.id}/retire`)).code).toBe(409);

    const [creation] = await audited('plan.create', `plan:${plan.id}`);
    expect(creation).toMatchObject({ before: null, after: { id: plan.id, active: true } });
    const [retirement] = await audited('plan.retire', `plan:${plan.id}`);
    expect(retirement).toMatchObject({ before: { active: true, retiredAt: null }, after: { active: false } });
  });

  it('lists orders by email, id and status with their user, payments and refunds', async () => {
    const buyer = await member('viewer');
    const order = await site.call('POST', '/api/payment/order', { token: buyer.token, body: { planId: 'coins-100' } });
    const listed = await site.admin('GET', `/api/admin/orders?orderId=${order.data.id}`);
    expect(listed.data.items).toEqual([
      expect.objectContaining({ id: order.data.id, status: 'created', user: { id: buyer.id, email: null }, payments: [], refunds: [] }),
    ]);
    expect((await site.admin('GET', `/api/admin/orders?orderId=${order.data.id}&status=succeeded`)).data.items).toEqual([]);
    expect((await site.admin('GET', '/api/admin/orders?status=lost')).code).toBe(422);
    expect((await site.admin('GET', '/api/admin/orders?from=yesterday')).code).toBe(422);
  });
});
