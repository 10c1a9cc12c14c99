import { Router } from 'express';
import { z } from 'zod';
import { auditAdminCall } from '../bus/audit.ts';
import { listDeadEvents, requestReplay } from '../bus/dead-events.ts';
import { ok } from '../envelope.ts';
import type { Platform } from '../platform.ts';
import { parseInput } from '../validation.ts';
import { adminCallOf, requireRole } from './admin-guard.ts';

const replayBody = z.object({ ids: z.array(z.uuid({ message: 'ids must be event ids' })).min(1).max(1000).optional() });
const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

/**
 * The operator's view of the bus (docs/api.md "Admin"): events consumers set aside after their
 * retries, and a replay the consumers' own processes carry out on their next turn.
 */
export function eventsAdminRoutes(platform: Pick<Platform, 'config' | 'database' | 'bus'>): Router {
  const router = Router();
  router.use('/api/admin/events', requireRole(platform.config.ADMIN_TOKEN, 'admin'));
  router.get('/api/admin/events/dead', async (req, res) => {
    res.json(ok(await listDeadEvents(platform.database.db, parseInput(listQuery, req.query).limit)));
  });
  router.post('/api/admin/events/replay', async (req, res) => {
    const { ids } = parseInput(replayBody, req.body);
    const replayed = await platform.database.transaction(async (tx) => {
      const count = await requestReplay(tx, ids);
      await auditAdminCall(tx, adminCallOf(req), { action: 'events.replay', target: 'events:dead', before: { ids: ids ?? 'all' }, after: { replayed: count } });
      return count;
    });
    platform.bus.nudge();
    res.json(ok({ replayed }));
  });
  return router;
}
