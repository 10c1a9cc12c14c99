-- A batch row (the pixel's hits) is large: lz4 compresses it in a fraction of the time of
-- PostgreSQL's default pglz. A server built without lz4 keeps pglz.
do $$
begin
  alter table platform.outbox alter column data set compression lz4;
exception when feature_not_supported then
  null;
end $$;
