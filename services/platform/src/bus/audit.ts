import type { RequestContext } from '../context.ts';
import type { Executor } from '../db/database.ts';
import type { AdminCaller } from '../http/admin-guard.ts';
import { appendEvent } from './events.ts';

/** An admin call: the request it came in and who made it (`requireRole`). */
export interface AdminCall {
  context: RequestContext;
  caller: AdminCaller;
}

/** One change an admin call made: what, to which target, and the target before and after. */
export interface AuditEntry {
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

/**
 * Writes `admin.audited` in the transaction of the change it records, so the audit log holds a
 * change exactly when the change happened, whichever service made it; the user service stores it
 * for `GET /api/admin/audit` (docs/architecture.md "Audit log").
 */
export async function auditAdminCall(tx: Executor, { context, caller }: AdminCall, entry: AuditEntry): Promise<void> {
  // A creation has nothing before it and a removal nothing after: the field is left out, not null.
  const json = (name: string, value: unknown) => (value === null || value === undefined ? {} : { [name]: JSON.stringify(value) });
  await appendEvent(tx, context, 'admin.audited', {
    actor: caller.actor,
    action: entry.action,
    target: entry.target,
    ...json('beforeJson', entry.before),
    ...json('afterJson', entry.after),
  });
}
