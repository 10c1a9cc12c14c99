import { and, desc, eq, gte, ilike, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Executor, Role } from '@cliffhanger/platform';
import { accounts, auditLog, sessions } from './schema.ts';
import type { Account } from './repository.ts';

export type AuditRow = typeof auditLog.$inferSelect;

export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  from?: Date;
  to?: Date;
}

export interface AccountFilter {
  query?: string;
  role?: Role;
}

/** The tables behind the operators' calls on users and the audit log (admin.ts). */
export const adminRepository = {
  /**
   * Accounts whose id is `query` or whose email contains it (members only without one), holding
   * `role` when it is given, newest first; `limit` rows from `offset`.
   */
  async findAccounts(db: Executor, filter: AccountFilter, offset: number, limit: number): Promise<Account[]> {
    const { query, role } = filter;
    const where = and(
      query ? or(eq(accounts.id, query), ilike(accounts.email, `%${query.replace(/[\\%_]/g, '\\$&')}%`)) : eq(accounts.kind, 'member'),
      role ? eq(accounts.role, role) : undefined,
    );
    return db.select().from(accounts).where(where).orderBy(desc(accounts.createdAt), accounts.id).offset(offset).limit(limit);
  },

  async lockAccountByEmail(db: Executor, email: string): Promise<Account | null> {
    const [row] = await db.select().from(accounts).where(sql`lower(${accounts.email}) = lower(${email})`).for('update');
    return row ?? null;
  },

  async setRole(db: Executor, id: string, role: Role): Promise<Account> {
    const [row] = await db.update(accounts).set({ role }).where(eq(accounts.id, id)).returning();
    return row!;
  },

  async liveSessionsOf(db: Executor, userId: string) {
    return db
      .select({ createdAt: sessions.createdAt, lastUsedAt: sessions.lastUsedAt })
      .from(sessions)
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
      .orderBy(desc(sessions.lastUsedAt));
  },

  /** Stores one `admin.audited` event; a redelivered one changes nothing. */
  async insertAudit(db: Executor, row: AuditRow): Promise<void> {
    await db.insert(auditLog).values(row).onConflictDoNothing();
  },

  async auditPage(db: Executor, filter: AuditFilter, offset: number, limit: number): Promise<AuditRow[]> {
    const where: SQL[] = [];
    if (filter.actor) where.push(eq(auditLog.actor, filter.actor));
    if (filter.action) where.push(eq(auditLog.action, filter.action));
    if (filter.target) where.push(eq(auditLog.target, filter.target));
    if (filter.from) where.push(gte(auditLog.at, filter.from));
    if (filter.to) where.push(lt(auditLog.at, filter.to));
    return db
      .select()
      .from(auditLog)
      .where(and(...where))
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .offset(offset)
      .limit(limit);
  },
};
