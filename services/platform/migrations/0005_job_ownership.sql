-- A token per claim: a worker renews, completes or fails a job only while it holds the current
-- claim, so a stalled worker cannot finish a job another worker took over.
alter table platform.jobs add column lock_token text;
