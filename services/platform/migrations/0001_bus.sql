-- The transactional outbox: every event is written in the transaction of the change that caused it.
create table platform.outbox (
  id bigserial primary key,
  event_id uuid not null unique,
  type text not null,
  occurred_at timestamptz not null,
  user_id text,
  attribution jsonb not null,
  data jsonb not null,
  -- Commit-order position, assigned by the one relay holding the lock (Postgres bus).
  seq bigint unique,
  -- When the relay handed the event to Kafka (Kafka bus).
  published_at timestamptz
);
create index outbox_unsequenced on platform.outbox (id) where seq is null;
create index outbox_unpublished on platform.outbox (id) where published_at is null;

create table platform.consumer_offsets (
  consumer text primary key,
  seq bigint not null default 0,
  failures integer not null default 0,
  last_error text
);

-- Idempotency: a consumer applies an event id at most once, whatever the bus redelivers.
create table platform.processed_events (
  consumer text not null,
  event_id uuid not null,
  processed_at timestamptz not null default now(),
  primary key (consumer, event_id)
);

create table platform.dead_events (
  consumer text not null,
  event_id uuid not null,
  error text not null,
  failed_at timestamptz not null default now(),
  primary key (consumer, event_id)
);
