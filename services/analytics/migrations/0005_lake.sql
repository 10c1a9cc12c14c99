-- The lake's sink (src/lake.ts). Consumer analytics.lake stages every event here in the transaction
-- that marks it processed; the flusher claims staged rows as a numbered batch (lake_batches, their
-- first and last staged id), writes the batch's Parquet files named by that range, then deletes
-- the batch and its rows. A batch still claimed at a restart is written again under the same names,
-- overwriting what a crash left: each event is in exactly one file.
create table analytics.lake_staged (
  id bigint generated always as identity primary key,
  batch bigint,
  event_id uuid not null,
  type text not null,
  occurred_at timestamptz not null,
  user_id text,
  attribution jsonb not null,
  data jsonb not null
);
create index lake_staged_by_batch on analytics.lake_staged (batch, id);
create table analytics.lake_batches (
  id bigint generated always as identity primary key,
  first_id bigint not null,
  last_id bigint not null,
  claimed_at timestamptz not null default now()
);
-- The files written, a row each, for retention (LAKE_RETENTION_DAYS) and as a catalog.
create table analytics.lake_files (
  key text primary key,
  type text not null,
  day date not null,
  events integer not null,
  written_at timestamptz not null default now()
);
create index lake_files_by_day on analytics.lake_files (day);
