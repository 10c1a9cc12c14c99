-- What a gateway's edge (the statics.png pixel) received, a batch of requests a row, kept as they
-- arrived but for what may never be stored (a client's address is hashed, a session token becomes
-- its user). Every gateway writes here, and a gateway runs no module's migrations: hence the
-- platform's schema. The module that owns the edge turns each batch into its events, wherever it
-- runs, in the transaction that deletes the row (edge-batches.ts).
create table platform.edge_batches (
  id bigint generated always as identity primary key,
  edge text not null,
  received_at timestamptz not null default now(),
  body text not null
);
create index edge_batches_by_edge on platform.edge_batches (edge, id);
do $$
begin
  alter table platform.edge_batches alter column body set compression lz4;
exception when feature_not_supported then
  null;
end $$;
