-- The W3C trace context of the request that caused an event, carried to its consumers (the Kafka
-- `traceparent` header), so one trace can follow a change from the browser to every reaction.
alter table platform.outbox add column traceparent text;
