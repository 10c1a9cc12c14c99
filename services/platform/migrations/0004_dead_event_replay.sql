-- An operator asks for a set-aside event to be tried again: the consumer's own process replays it
-- (it alone has the handler), then the dead letter goes, or stays with the new error.
alter table platform.dead_events add column replay_requested_at timestamptz;
alter table platform.dead_events add column attempts integer not null default 0;
create index dead_events_replay on platform.dead_events (consumer) where replay_requested_at is not null;
