-- The sandbox's webhooks, written in the transaction that settles their payment or refund, as
-- Stripe keeps its events: a process killed before it sent one (or while the receiver was down)
-- loses nothing, and the next process to start sends it, signed afresh, until it is answered 2xx or
-- the retry schedule runs out.
create table sandbox_payments.webhooks (
  -- The event's id (evt_...): every delivery of it carries the same, so the receiver applies it once.
  id text primary key,
  type text not null,
  -- The event's JSON, sent as is on every attempt.
  payload text not null,
  -- Attempts claimed so far; a claim moves next_attempt_at past the attempt's timeout, so a process
  -- that died mid-attempt leaves the event to the next one once that time has passed.
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  delivered_at timestamptz,
  given_up_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhooks_due on sandbox_payments.webhooks (next_attempt_at) where delivered_at is null and given_up_at is null;
