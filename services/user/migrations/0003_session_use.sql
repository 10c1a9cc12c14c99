-- Sessions expire when unused for SESSION_IDLE_DAYS: when each was last used (written at most once an hour).
-- Sessions that exist already count as used now.
alter table users.sessions add column last_used_at timestamptz not null default now();
