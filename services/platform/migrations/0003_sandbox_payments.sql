-- The sandbox payment provider (embedded mode and tests; empty wherever Stripe runs). Its state
-- lives here so a restart loses no token, saved card or pending payment. Card numbers and CVCs never
-- reach it: a card keeps its brand, last4, expiry and its test-card outcome.
create schema if not exists sandbox_payments;

create table sandbox_payments.tokens (
  id text primary key,
  brand text not null,
  last4 text not null check (last4 ~ '^[0-9]{4}$'),
  exp_month integer not null check (exp_month between 1 and 12),
  exp_year integer not null,
  outcome text not null,
  created_at timestamptz not null default now(),
  -- Tokens are single use: a charge takes one by setting this.
  used_at timestamptz
);

create table sandbox_payments.customers (
  id text primary key,
  user_id text not null unique,
  created_at timestamptz not null default now()
);

-- A charged token becomes a payment method; a charge that saves it attaches it to the customer,
-- and only attached methods can be charged off session.
create table sandbox_payments.payment_methods (
  id text primary key,
  customer_id text references sandbox_payments.customers (id),
  brand text not null,
  last4 text not null,
  exp_month integer not null,
  exp_year integer not null,
  outcome text not null,
  created_at timestamptz not null default now()
);

create table sandbox_payments.payments (
  id text primary key,
  -- One payment per key: a concurrent second charge waits on this constraint, then answers the first's result.
  idempotency_key text not null unique,
  -- What the key was first used for; the same key for another order or amount is refused.
  request text not null,
  order_id text not null,
  amount integer not null check (amount > 0),
  currency text not null,
  flow text not null check (flow in ('card', 'saved_card', 'redirect')),
  -- 'pending' exists only inside the charging transaction.
  status text not null check (status in ('pending', 'requires_action', 'succeeded', 'failed', 'canceled')),
  failure_code text,
  decline_code text,
  customer_id text references sandbox_payments.customers (id),
  payment_method_id text references sandbox_payments.payment_methods (id),
  save_for_later boolean not null default false,
  return_url text,
  cancel_url text,
  created_at timestamptz not null default now(),
  settled_at timestamptz
);
create index payments_by_order on sandbox_payments.payments (order_id);
