-- Server-side conversions (src/conversions.ts): purchases and registrations on their way to an
-- advertiser's API (Facebook's Conversions API, TikTok's Events API). The consumer writes a row in the
-- transaction that marks its event processed; a sender delivers it afterwards, outside any
-- transaction. One row per destination and conversion event id: a redelivered event adds nothing, so
-- nothing is sent twice from our side.
create table analytics.conversions (
  id bigint generated always as identity primary key,
  destination text not null check (destination in ('facebook', 'tiktok')),
  -- The id the browser pixel sends for the same conversion (`order:<orderId>` for a purchase).
  event_id text not null,
  -- One entry of the request's `data` list, as the destination reads it; never the access token.
  payload jsonb not null,
  -- Each claim by a sender counts, so a conversion whose sender keeps dying stops too.
  attempts integer not null default 0,
  -- When a sender may claim it next: due now, after a backoff, or after the claim's lease.
  next_attempt_at timestamptz not null default now(),
  sent_at timestamptz,
  -- Set when the destination refused it for good (a 4xx) or its attempts ran out.
  failed_at timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  unique (destination, event_id)
);
create index conversions_due on analytics.conversions (next_attempt_at) where sent_at is null and failed_at is null;

-- The SHA-256 of each registered user's normalised email (never the address), from user.registered:
-- what a later purchase of theirs is matched by (`em`).
create table analytics.conversion_users (
  user_id text primary key,
  email_sha256 text not null
);
