import { Router } from 'express';
import { z } from 'zod';
import { ok } from '../envelope.ts';
import type { Platform } from '../platform.ts';
import { pagingSchema, parseInput } from '../validation.ts';
import { requireRole } from './admin-guard.ts';

/** How long a part may take to answer before the health page calls it down. */
const HEALTH_TIMEOUT_MS = 2_000;

export type PartState = 'up' | 'degraded' | 'starting' | 'down';

/** A module as the health page shows it: where it runs, whether it answers, and this gateway's circuit to it. */
export interface ServiceHealth {
  name: string;
  runs: 'here' | 'apart';
  /** `unknown` for a module apart with no URL: others reach it only through the queue. */
  state: PartState | 'unknown';
  /** The circuit this gateway keeps to a module that runs apart; null for one in this process. */
  circuit: 'closed' | 'open' | 'half-open' | null;
}

export interface OperationsAdminOptions {
  /** The job queues the registry's modules work, in its order: the first is listed when none is named. */
  queues: string[];
  /** Each module's state, asked when the health page is. */
  services(): Promise<ServiceHealth[]>;
}

const jobsQuery = (queues: string[]) =>
  pagingSchema.extend({
    state: z.enum(['waiting', 'active', 'failed'], { message: 'state must be waiting, active or failed' }).default('waiting'),
    queue: z.string().refine((name) => queues.includes(name), { message: `queue must be one of: ${queues.join(', ') || '(none)'}` }).optional(),
  });

/** A part's answer within the timeout, or `down`: a driver that retries forever (Redis away) must not hold the page. */
export async function within(check: () => Promise<PartState>, timeoutMs = HEALTH_TIMEOUT_MS): Promise<PartState> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<PartState>((resolve) => (timer = setTimeout(() => resolve('down'), timeoutMs)));
  try {
    return await Promise.race([check().catch((): PartState => 'down'), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The operator's view of the jobs and the parts of the site (docs/api.md "Admin", docs/operations.md):
 * the job queue by state, answered by whichever adapter runs, and what /readyz checks, part by part,
 * with each remote module's circuit.
 */
export function operationsAdminRoutes(platform: Pick<Platform, 'config' | 'database' | 'bus' | 'queue'>, options: OperationsAdminOptions): Router {
  const router = Router();
  const query = jobsQuery(options.queues);
  router.use(['/api/admin/jobs', '/api/admin/health'], requireRole(platform.config.ADMIN_TOKEN, 'operator'));
  router.get('/api/admin/jobs', async (req, res) => {
    const { state, queue = options.queues[0], page, size } = parseInput(query, req.query);
    if (!queue) {
      res.json(ok({ queue: null, state, items: [], page, size, total: 0, hasMore: false }));
      return;
    }
    // The console says failed; the port says dead: the same jobs, out of attempts or failed for good.
    const listed = await platform.queue.list(queue, state === 'failed' ? 'dead' : state, { offset: (page - 1) * size, limit: size });
    const items = listed.items.map((job) => ({ ...job, status: state }));
    res.json(ok({ queue, state, items, page, size, total: listed.total, hasMore: page * size < listed.total }));
  });
  router.get('/api/admin/health', async (_req, res) => {
    const [database, queue, services] = await Promise.all([
      within(async () => (await platform.database.ping(), 'up')),
      within(async () => (await platform.queue.depth(), 'up')),
      options.services(),
    ]);
    res.json(
      ok({
        parts: [
          { name: 'database', kind: platform.database.kind, state: database },
          { name: 'queue', kind: platform.queue.kind, state: queue },
          { name: 'bus', kind: platform.bus.kind, state: platform.bus.health() },
        ],
        services,
      }),
    );
  });
  return router;
}
