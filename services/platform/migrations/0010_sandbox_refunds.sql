-- The sandbox's refunds (Stripe's Refunds API in its shape): whole or partial, one per idempotency
-- key, never more in all than the payment took (the provider checks it under the payment's row lock).
create table sandbox_payments.refunds (
  id text primary key,
  idempotency_key text not null unique,
  -- What the key was first used for: the same key for another payment or amount is refused.
  request text not null,
  payment_id text not null references sandbox_payments.payments (id),
  amount integer not null check (amount > 0),
  currency text not null,
  order_id text,
  refund_ref text,
  created_at timestamptz not null default now()
);
create index refunds_by_payment on sandbox_payments.refunds (payment_id);
