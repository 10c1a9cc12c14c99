create schema if not exists payment;

-- What can be bought: coin packs and VIP plans. An operator changes them through the admin API;
-- an order copies what it needs at creation, so a change applies to new orders only.
create table payment.plans (
  id text primary key,
  kind text not null check (kind in ('coins', 'vip')),
  title text not null check (length(title) between 1 and 100),
  price_amount integer not null check (price_amount > 0),
  currency text not null default 'USD' check (currency ~ '^[A-Z]{3}$'),
  coins integer,
  bonus_coins integer,
  period_days integer,
  -- One discounted pack per account, shown only until its first successful payment.
  first_purchase_only boolean not null default false,
  active boolean not null default true,
  position integer not null default 0,
  updated_at timestamptz not null default now(),
  check (
    (kind = 'coins' and coins > 0 and bonus_coins >= 0 and period_days is null)
    or (kind = 'vip' and period_days > 0 and coins is null and bonus_coins is null and not first_purchase_only)
  )
);

insert into payment.plans (id, kind, title, price_amount, coins, bonus_coins, period_days, first_purchase_only, position) values
  ('coins-first', 'coins', 'First purchase offer', 199, 500, 100, null, true, 0),
  ('coins-100', 'coins', '100 coins', 99, 100, 0, null, false, 1),
  ('coins-500', 'coins', '500 coins', 499, 500, 50, null, false, 2),
  ('coins-1000', 'coins', '1,000 coins', 999, 1000, 150, null, false, 3),
  ('coins-2000', 'coins', '2,000 coins', 1999, 2000, 400, null, false, 4),
  ('vip-weekly', 'vip', 'VIP weekly', 499, null, null, 7, false, 10),
  ('vip-monthly', 'vip', 'VIP monthly', 1499, null, null, 30, false, 11),
  ('vip-yearly', 'vip', 'VIP yearly', 9999, null, null, 365, false, 12);

-- VIP subscriptions. At most one live (active or past_due) per user; ended ones stay as history.
create table payment.subscriptions (
  id text primary key,
  user_id text not null,
  plan_id text not null references payment.plans (id),
  status text not null check (status in ('active', 'past_due', 'canceled', 'expired')),
  -- What each renewal charges: the price it was bought at, whatever the plan costs later.
  price_amount integer not null check (price_amount > 0),
  currency text not null,
  period_days integer not null check (period_days > 0),
  renews_at timestamptz not null,
  cancel_at_period_end boolean not null default false,
  -- The provider's references to the card kept for renewals; never card data.
  customer_id text,
  payment_method_id text,
  email text,
  -- Failed renewals of the current period: retried 1, 3, 5 and 7 days after the first failure.
  retry_count integer not null default 0,
  first_failed_at timestamptz,
  next_retry_at timestamptz,
  -- A renewal under way: another process leaves the subscription alone until then.
  renewal_lease_until timestamptz,
  referrer_token text,
  fbclid text,
  ttclid text,
  started_at timestamptz not null,
  updated_at timestamptz not null,
  ended_at timestamptz
);
create unique index subscriptions_one_live on payment.subscriptions (user_id) where status in ('active', 'past_due');
create index subscriptions_due on payment.subscriptions (renews_at) where status in ('active', 'past_due');
create index subscriptions_by_user on payment.subscriptions (user_id, started_at desc);

-- Orders: a purchase, or one renewal period of a subscription. The plan's terms are copied in.
create table payment.orders (
  id text primary key,
  user_id text not null,
  plan_id text not null references payment.plans (id),
  kind text not null check (kind in ('coins', 'vip')),
  title text not null,
  price_amount integer not null check (price_amount > 0),
  currency text not null,
  coins integer,
  bonus_coins integer,
  period_days integer,
  first_purchase_only boolean not null default false,
  status text not null check (status in ('created', 'succeeded', 'failed', 'canceled', 'refunded')),
  -- The provider's payment of the latest attempt: a failure webhook counts only for this one.
  payment_id text,
  failure_reason text,
  email text,
  -- The subscription a VIP order started, extended or renewed; period_start only on renewals.
  subscription_id text references payment.subscriptions (id),
  period_start timestamptz,
  -- The attribution of the request that created the order, carried by every later event.
  referrer_token text,
  fbclid text,
  ttclid text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  succeeded_at timestamptz,
  refunded_at timestamptz,
  refund_reason text,
  -- When the unlock service was last told of this order's status (coins credited or clawed back,
  -- VIP applied); null while that is owed, and a sweep catches up after a crash.
  unlock_synced_at timestamptz
);
create index orders_by_user on payment.orders (user_id, created_at desc, id desc);
create unique index orders_one_per_period on payment.orders (subscription_id, period_start) where period_start is not null;
create index orders_unsynced on payment.orders (updated_at) where unlock_synced_at is null and status in ('succeeded', 'refunded');

-- Pay calls by Idempotency-Key (stored hashed), with a hash of the request they carried. The row is
-- claimed before the charge and holds the answer once it is known, so a replay charges nothing.
create table payment.pay_requests (
  user_id text not null,
  key_hash text not null,
  fingerprint text not null,
  order_id text not null references payment.orders (id),
  state text not null check (state in ('in_flight', 'done')),
  result jsonb,
  claimed_at timestamptz not null,
  primary key (user_id, key_hash)
);
-- One attempt at a time per order: two keys paying one order at once would charge twice.
create unique index pay_requests_one_in_flight on payment.pay_requests (order_id) where state = 'in_flight';

-- Provider webhook events applied, each once, in the transaction of its effect.
create table payment.processed_webhooks (
  event_id text primary key,
  type text not null,
  order_id text,
  processed_at timestamptz not null
);
