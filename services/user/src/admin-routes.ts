import { Router } from 'express';
import { z } from 'zod';
import { adminCallOf, ok, pagingSchema, parseInput, requireRole, requiredText, roles } from '@cliffhanger/platform';
import type { UserAdmin } from './admin.ts';

const staffRoles = ['operator', 'admin'] as const;
const idParam = z.object({ id: requiredText('Please choose a user', 100) });
const usersQuery = pagingSchema.extend({
  query: z.string().trim().max(254).optional(),
  role: z.enum(staffRoles, { message: 'role must be operator or admin' }).optional(),
});
const grantBody = z
  .object({
    coins: z.number({ message: 'coins must be a whole number' }).int('coins must be a whole number').min(1, 'Grant at least 1 coin').max(100_000).optional(),
    vipDays: z.number({ message: 'vipDays must be a whole number' }).int('vipDays must be a whole number').min(1).max(3660).optional(),
    reason: requiredText('Please say why', 500),
  })
  .strict();
const roleBody = z.object({ role: z.enum(roles, { message: 'role must be viewer, operator or admin' }) });
const instant = (name: string) =>
  z.iso.datetime({ offset: true, message: `${name} must be a time like 2026-01-31T00:00:00Z` }).transform((value) => new Date(value)).optional();
const auditQuery = pagingSchema.extend({
  actor: z.string().trim().min(1).max(100).optional(),
  action: z.string().trim().min(1).max(100).optional(),
  target: z.string().trim().min(1).max(200).optional(),
  from: instant('from'),
  to: instant('to'),
});

/**
 * The operators' calls on users (docs/api.md "Admin"): operators find users, grant coins and end
 * their sessions; only an admin changes a role. The audit log is an operator's to read.
 */
export function userAdminRoutes(admin: UserAdmin, adminToken: string | undefined): Router {
  const router = Router();
  router.use(['/api/admin/users', '/api/admin/audit'], requireRole(adminToken, 'operator'));

  router.get('/api/admin/users', async (req, res) => {
    const { query, role, page, size } = parseInput(usersQuery, req.query);
    res.json(ok(await admin.findUsers({ query: query || undefined, role }, page, size)));
  });

  router.get('/api/admin/users/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    const { page, size } = parseInput(pagingSchema, req.query);
    res.json(ok(await admin.userDetail(id, page, size)));
  });

  router.post('/api/admin/users/:id/grants', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    res.json(ok(await admin.grant(id, parseInput(grantBody, req.body), adminCallOf(req))));
  });

  router.post('/api/admin/users/:id/sessions/revoke', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    res.json(ok(await admin.revokeSessions(id, adminCallOf(req))));
  });

  router.put('/api/admin/users/:id/role', requireRole(adminToken, 'admin'), async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    const { role } = parseInput(roleBody, req.body);
    res.json(ok(await admin.setRole(id, role, adminCallOf(req))));
  });

  router.get('/api/admin/audit', async (req, res) => {
    const { page, size, ...filter } = parseInput(auditQuery, req.query);
    res.json(ok(await admin.auditLog(filter, page, size)));
  });

  return router;
}
