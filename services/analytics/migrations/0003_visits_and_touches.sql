-- Honest counts (issue 27): visits and page views apart from landings, and two attribution models.

-- Every attributed row now exists per model: `first` (the user's first touch) and `last` (the latest
-- touch at the event). Rows kept before this migration were counted by one rule (the event's own
-- click id, else the user's first); they stand for both models.
alter table analytics.daily add column model text not null default 'first' check (model in ('first', 'last'));
alter table analytics.daily add column visits integer not null default 0;
alter table analytics.daily add column page_views integer not null default 0;
alter table analytics.daily drop constraint daily_pkey;
alter table analytics.daily add primary key (dimension, model, day, key);
insert into analytics.daily (day, dimension, model, key, landings, video_views, plays, unlocks, orders, revenue_amount, vip_starts, vip_cancels)
select day, dimension, 'last', key, landings, video_views, plays, unlocks, orders, revenue_amount, vip_starts, vip_cancels from analytics.daily;
alter table analytics.daily alter column model drop default;

-- Each user's touches per dimension: the first key they came with and the latest, with their times,
-- so events applied out of order (another topic, a guest merged later) still find the right ones.
create table analytics.touches (
  user_id text not null,
  dimension text not null check (dimension in ('clickId', 'referrer', 'campaign')),
  first_key text not null,
  first_at timestamptz not null,
  last_key text not null,
  last_at timestamptz not null,
  primary key (user_id, dimension)
);
insert into analytics.touches
select user_id, 'campaign', campaign, first_seen_at, campaign, first_seen_at from analytics.user_attribution where campaign is not null
union all
select user_id, 'referrer', referrer_token, first_seen_at, referrer_token, first_seen_at from analytics.user_attribution where referrer_token is not null
union all
select user_id, 'clickId', click_id, first_seen_at, click_id, first_seen_at from analytics.user_attribution where click_id is not null;
drop table analytics.user_attribution;

-- A guest merged into an account (user.logged_in): the guest's events applied after the merge count
-- for the account. Kept for good: a guest's late event may come any time its topic still holds it.
create table analytics.merged_guests (
  guest_id text primary key,
  account_id text not null
);

-- What the player reports besides startup and rebuffer time (Mux Data's names): stalls, plays left
-- before their first frame without an error, and plays that failed before it.
alter table analytics.playback add column rebuffer_count integer not null default 0;
alter table analytics.playback add column exits_before_start integer not null default 0;
alter table analytics.playback add column start_failures integer not null default 0;
