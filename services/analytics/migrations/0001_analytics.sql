create schema if not exists analytics;

-- What an analyst reads: one row of counters per day and key of a dimension. `day` rows (key = the
-- day itself) count everything; `clickId` (fbclid, else ttclid), `referrer` (referrer token) and
-- `campaign` rows count only events that carry one, or whose user brought one before. Days are UTC.
-- Consumers add to a row with `on conflict do update set x = x + excluded.x`, in the transaction that
-- marks the event processed, so each event counts once.
create table analytics.daily (
  day date not null,
  dimension text not null check (dimension in ('day', 'clickId', 'referrer', 'campaign')),
  key text not null,
  landings integer not null default 0,
  video_views integer not null default 0,
  plays integer not null default 0,
  unlocks integer not null default 0,
  orders integer not null default 0,
  -- Paid revenue in minor units of USD (payment.succeeded); gross, refunds are not taken off.
  revenue_amount bigint not null default 0,
  vip_starts integer not null default 0,
  vip_cancels integer not null default 0,
  primary key (dimension, day, key)
);

-- The first campaign, referrer token and click id each user came with: events that carry none (an
-- order placed days after the landing) still count for them.
create table analytics.user_attribution (
  user_id text primary key,
  campaign text,
  referrer_token text,
  click_id text,
  first_seen_at timestamptz not null
);

-- The funnel, per user: first landing, first video view, first unlock or paid order.
create table analytics.funnel (
  user_id text primary key,
  landed_at timestamptz,
  first_video_view_at timestamptz,
  first_converted_at timestamptz
);
create index funnel_landed on analytics.funnel (landed_at) where landed_at is not null;

-- Facts that count once whatever number of events tell them: a play is a user starting an episode on
-- a UTC day, however often its position is saved (the rule of the catalog's play counts),
-- `play:<user>:<episode>:<day>`; a subscription is canceled once, though both the viewer's cancel and
-- an operator's end announce it, `vip-cancel:<subscription>`.
create table analytics.counted_once (
  reference text primary key
);

-- Playback quality from the player's `playback` pixel hits, per day and episode or rung. The
-- rebuffer ratio is rebuffer_ms / (watch_ms + rebuffer_ms), of the reports that carried their watch time.
create table analytics.playback (
  day date not null,
  dimension text not null check (dimension in ('episode', 'rung')),
  key text not null,
  plays integer not null default 0,
  errors integer not null default 0,
  rebuffer_ms bigint not null default 0,
  watch_ms bigint not null default 0,
  primary key (dimension, day, key)
);

-- Startup times as a histogram (bounded, and days add up): how many samples took at most `le_ms`
-- and more than the bound below it. Percentiles are read off the buckets.
create table analytics.playback_startup (
  day date not null,
  dimension text not null check (dimension in ('episode', 'rung')),
  key text not null,
  le_ms integer not null,
  samples integer not null default 0,
  primary key (dimension, day, key, le_ms)
);
