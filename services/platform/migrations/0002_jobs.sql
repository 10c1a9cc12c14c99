-- The database-backed job runner: a restart loses no job, a crashed worker's job is taken again
-- once its lease runs out.
create table platform.jobs (
  id text primary key,
  queue text not null,
  data jsonb not null,
  status text not null default 'waiting' check (status in ('waiting', 'active', 'completed', 'dead')),
  priority integer not null default 0,
  attempts integer not null default 0,
  max_attempts integer not null,
  backoff_ms integer not null,
  run_at timestamptz not null default now(),
  locked_until timestamptz,
  progress integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index jobs_ready on platform.jobs (queue, priority, run_at) where status in ('waiting', 'active');
