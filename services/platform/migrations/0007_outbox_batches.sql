-- An outbox row may hold a batch of events of one type (the pixel's hits): its `data` is then the
-- JSON array of them, each with its own id, time, user, attribution and trace, and the buses hand
-- them on one by one. A dead letter of such an event points at the row that holds it.
alter table platform.dead_events add column outbox_event_id uuid;
