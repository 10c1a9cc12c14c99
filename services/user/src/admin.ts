import {
  auditAdminCall,
  Invalid,
  NotFound,
  pageOf,
  systemContext,
  type AdminCall,
  type BusEvent,
  type Database,
  type Executor,
  type Page,
  type Role,
} from '@cliffhanger/platform';
import { adminRepository as admin, type AccountFilter, type AuditFilter, type AuditRow } from './admin-repository.ts';
import type { AccountStanding, OperatorVip, OperatorWallets } from './ports.ts';
import { userRepository as repo, type Account } from './repository.ts';
import { emailVerified, type UserService } from './service.ts';

/** A user as an operator sees them (`GET /api/admin/users`). */
export interface AdminUser {
  id: string;
  kind: 'guest' | 'member';
  email: string | null;
  emailVerified: boolean;
  role: Role;
  createdAt: string;
  registeredAt: string | null;
}

export interface AuditItem {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

const adminUserOf = (account: Account): AdminUser => ({
  id: account.id,
  kind: account.kind,
  email: account.email,
  emailVerified: emailVerified(account),
  role: account.role,
  createdAt: account.createdAt.toISOString(),
  registeredAt: account.registeredAt?.toISOString() ?? null,
});

const auditItemOf = (row: AuditRow): AuditItem => ({ ...row, at: row.at.toISOString() });

export interface UserAdminDeps {
  database: Database;
  users: UserService;
  standing: AccountStanding;
  wallets: OperatorWallets;
  vip: OperatorVip;
}

async function changeRole(tx: Executor, by: AdminCall, account: Account, role: Role): Promise<Account> {
  if (account.kind !== 'member' && role !== 'viewer') throw new Invalid({ role: 'Only a member can hold a role' });
  const changed = await admin.setRole(tx, account.id, role);
  await auditAdminCall(tx, by, { action: 'user.role', target: `user:${account.id}`, before: { role: account.role }, after: { role } });
  return changed;
}

/**
 * `npm run admin -- grant EMAIL ROLE` (and `revoke EMAIL`): the first operator, before anyone may call
 * the admin API; audited with actor "cli". A running site sees it within its session cache's 5 seconds.
 */
export async function setRoleByEmail(database: Database, email: string, role: Role): Promise<AdminUser> {
  const changed = await database.transaction(async (tx) => {
    const account = await admin.lockAccountByEmail(tx, email);
    if (!account || account.kind !== 'member') throw new NotFound(`No member has the email ${email}`);
    return changeRole(tx, { context: systemContext('admin-cli'), caller: { actor: 'cli', role: 'admin' } }, account, role);
  });
  // A site running on this database drops what it holds of the member's sessions: the role shows at their next call.
  await repo.announceSessionsEnded(database.db, changed.id);
  return adminUserOf(changed);
}

/** The operators' work on accounts: finding users, their standing, sessions and roles; the audit log. */
export function createUserAdmin({ database, users, standing, wallets, vip }: UserAdminDeps) {
  async function lockedAccount(tx: Executor, id: string): Promise<Account> {
    const account = await repo.lockAccount(tx, id);
    if (!account) throw new NotFound('No such user');
    return account;
  }

  return {
    async findUsers(filter: AccountFilter, page: number, size: number): Promise<Page<AdminUser>> {
      const rows = await admin.findAccounts(database.db, filter, (page - 1) * size, size + 1);
      return pageOf(rows.map(adminUserOf), page, size);
    },

    /**
     * The user with their wallet (balances, bonus lots, a page of the ledger, the latest unlocks) and
     * VIP, both the unlock service's, their live sessions and role.
     */
    async userDetail(id: string, ledgerPage: number, ledgerSize: number) {
      const account = await repo.accountById(database.db, id);
      if (!account) throw new NotFound('No such user');
      const [wallet, { vip }, sessions] = await Promise.all([
        wallets.walletOf(id, ledgerPage, ledgerSize),
        standing.standingOf(id),
        admin.liveSessionsOf(database.db, id),
      ]);
      return {
        ...adminUserOf(account),
        wallet,
        subscription: vip,
        sessions: sessions.map((session) => ({ createdAt: session.createdAt.toISOString(), lastUsedAt: session.lastUsedAt.toISOString() })),
      };
    },

    /**
     * Coins, VIP days or both granted with a reason; answers the new standing. Each is its owner's
     * transaction with its own audit entry: the coins the unlock service's (ledger entry and lot),
     * the days the payment service's (the VIP extended or started).
     */
    async grant(id: string, grant: { coins?: number; vipDays?: number; reason: string }, by: AdminCall) {
      if (grant.coins === undefined && grant.vipDays === undefined) throw new Invalid({ coins: 'Please say how many coins or VIP days to grant' });
      if (!(await repo.accountById(database.db, id))) throw new NotFound('No such user');
      const vipGranted = grant.vipDays === undefined ? null : await vip.grantVipDays({ userId: id, days: grant.vipDays, reason: grant.reason }, by);
      const coinsGranted = grant.coins === undefined ? null : await wallets.grantCoins({ userId: id, coins: grant.coins, reason: grant.reason }, by);
      const granted = { ...coinsGranted, ...(vipGranted && { vipDays: vipGranted.days, renewsAt: vipGranted.subscription.renewsAt }) };
      return { granted, ...(await standing.standingOf(id)) };
    },

    /** Sets a user's role under its row lock, audited in the same transaction. */
    async setRole(id: string, role: Role, by: AdminCall): Promise<AdminUser> {
      const changed = await database.transaction(async (tx) => changeRole(tx, by, await lockedAccount(tx, id), role));
      await users.forgetSessionsOf(id);
      return adminUserOf(changed);
    },

    /** Ends every live session of a user (signed out everywhere); answers how many. */
    async revokeSessions(id: string, by: AdminCall): Promise<{ revoked: number }> {
      const revoked = await database.transaction(async (tx) => {
        await lockedAccount(tx, id);
        const ended = await repo.revokeAllSessions(tx, id);
        await auditAdminCall(tx, by, { action: 'user.sessions.revoke', target: `user:${id}`, before: { sessions: ended }, after: { sessions: 0 } });
        return ended;
      });
      await users.forgetSessionsOf(id);
      return { revoked };
    },

    /** Stores an `admin.audited` event (consumer user.audit-log), once per event id. */
    async recordAudit(tx: Executor, event: BusEvent): Promise<void> {
      const data = event.data as { actor: string; action: string; target: string; beforeJson?: string; afterJson?: string };
      const parsed = (json: string | undefined) => (json ? (JSON.parse(json) as unknown) : null);
      await admin.insertAudit(tx, {
        id: event.id,
        at: new Date(event.time),
        actor: data.actor,
        action: data.action,
        target: data.target,
        before: parsed(data.beforeJson),
        after: parsed(data.afterJson),
      });
    },

    async auditLog(filter: AuditFilter, page: number, size: number): Promise<Page<AuditItem>> {
      const rows = await admin.auditPage(database.db, filter, (page - 1) * size, size + 1);
      return pageOf(rows.map(auditItemOf), page, size);
    },
  };
}

export type UserAdmin = ReturnType<typeof createUserAdmin>;
