-- A guest who logs in to an account brings its purchases (user.logged_in with mergedGuestId): its
-- orders and subscriptions move to the member in one transaction, recorded here once per event.
create table payment.guest_merges (
  event_id text primary key,
  guest_id text not null,
  member_id text not null,
  orders integer not null check (orders >= 0),
  subscriptions integer not null check (subscriptions >= 0),
  -- Both had a live VIP: the one kept (renewing) and the one ended with no further charge, whose
  -- unused time was added to the kept one's period.
  kept_subscription_id text references payment.subscriptions (id),
  ended_subscription_id text references payment.subscriptions (id),
  added_seconds integer not null default 0 check (added_seconds >= 0),
  merged_at timestamptz not null
);
