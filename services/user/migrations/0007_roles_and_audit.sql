-- Operators are members with a role (issue 29): viewer (everyone), operator (content, users,
-- support) or admin (also money, plans and roles). `npm run admin -- grant EMAIL ROLE` gives the first.
alter table users.users add column role text not null default 'viewer'
  check (role in ('viewer', 'operator', 'admin'));
alter table users.users add constraint users_role_needs_a_member check (role = 'viewer' or kind = 'member');

-- The audit log of admin calls (issue 25): every service writes `admin.audited` in the
-- transaction of its change; consumer user.audit-log stores each once (the event id is the key).
create table users.audit_log (
  id text primary key,
  at timestamptz not null,
  actor text not null,
  action text not null,
  target text not null,
  before jsonb,
  after jsonb
);
create index audit_log_at on users.audit_log (at desc, id);
create index audit_log_actor on users.audit_log (actor, at desc);
