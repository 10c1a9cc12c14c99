-- The salt of each UTC day for the statics.png address hash (as Plausible does): random, made by
-- whichever gateway hashes the day's first address (insert on conflict, so every process agrees),
-- and deleted once the day is over (pixel-hits.ts), so no past day's hashes can be linked to an
-- address or to another day's. Every gateway hashes, and a gateway runs no module's migrations:
-- hence the platform's schema, like edge_batches.
create table platform.edge_salts (
  day date primary key,
  salt bytea not null
);
