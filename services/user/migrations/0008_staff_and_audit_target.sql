-- The console lists who holds a role (GET /api/admin/users?role=) among every account, guests
-- included, and filters the audit log by what a change was made to (GET /api/admin/audit?target=).
create index users_staff on users.users (role) where role <> 'viewer';
create index audit_log_target on users.audit_log (target, at desc);
