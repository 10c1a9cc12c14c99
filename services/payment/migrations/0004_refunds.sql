-- Refunds through the provider, and disputes (issue 25). An order's money may come back in parts:
-- `refunded_amount` is every refund so far, and the order is `partially_refunded` until all of it is.
alter table payment.orders drop constraint orders_status_check;
alter table payment.orders add constraint orders_status_check
  check (status in ('created', 'succeeded', 'failed', 'canceled', 'partially_refunded', 'refunded'));
alter table payment.orders add column refunded_amount integer not null default 0;
update payment.orders set refunded_amount = price_amount where status = 'refunded';
alter table payment.orders add constraint orders_refunded_at_most_the_price check (refunded_amount between 0 and price_amount);

-- A partly refunded offer was still paid on the offer.
drop index payment.orders_one_first_purchase;
create unique index orders_one_first_purchase on payment.orders (user_id)
  where first_purchase_only and status in ('succeeded', 'partially_refunded', 'refunded');
drop index payment.orders_unsynced;
create index orders_unsynced on payment.orders (updated_at)
  where unlock_synced_at is null and status in ('succeeded', 'partially_refunded', 'refunded');
create index orders_by_payment on payment.orders (payment_id) where payment_id is not null;

-- Each refund of an order: an operator's (asked of the provider), one made at the provider (its
-- `charge.refunded` webhook) or a dispute lost. An operator's is written `pending` before the provider
-- is asked, under the key `refund:<id>`, so a webhook arriving meanwhile counts it and a crash is
-- asked again with the same key. `paid_coins` and `bonus_coins` are its share of what the order
-- bought: the refunds of one order add up to all of it. The unlock service applies each once, by
-- reference `refund:<id>`, and `unlock_synced_at` stays null until it did.
create table payment.refunds (
  id text primary key,
  order_id text not null references payment.orders (id),
  amount integer not null check (amount > 0),
  currency text not null,
  source text not null check (source in ('operator', 'provider', 'dispute')),
  reason text,
  status text not null check (status in ('pending', 'succeeded')),
  provider_refund_id text unique,
  paid_coins integer not null default 0 check (paid_coins >= 0),
  bonus_coins integer not null default 0 check (bonus_coins >= 0),
  -- What the unlock service reversed: coins taken back and unlocks revoked.
  coins_taken integer,
  unlocks_revoked integer,
  created_at timestamptz not null,
  succeeded_at timestamptz,
  unlock_synced_at timestamptz
);
create index refunds_by_order on payment.refunds (order_id, created_at);
create index refunds_unsynced on payment.refunds (succeeded_at) where status = 'succeeded' and unlock_synced_at is null;
create index refunds_pending on payment.refunds (created_at) where status = 'pending';

-- Disputes (chargebacks) by the provider's id. While `open`, what the order bought is suspended
-- (reference `dispute:<id>` in the unlock service); `won` restores it, `lost` keeps it reversed and
-- adds a refund of source `dispute`. `unlock_synced_at` is null while the unlock service is owed the
-- current status.
create table payment.disputes (
  id text primary key,
  order_id text not null references payment.orders (id),
  amount integer not null check (amount > 0),
  currency text not null,
  reason text not null,
  status text not null check (status in ('open', 'won', 'lost')),
  paid_coins integer not null default 0,
  bonus_coins integer not null default 0,
  coins_taken integer,
  unlocks_revoked integer,
  opened_at timestamptz not null,
  closed_at timestamptz,
  unlock_synced_at timestamptz
);
create index disputes_by_order on payment.disputes (order_id);
create index disputes_unsynced on payment.disputes (opened_at) where unlock_synced_at is null;

-- Orders refunded before this migration: one refund each, under the order's id, so its reference in
-- the unlock service is the `refund:<order id>` entry that took their coins back then.
insert into payment.refunds (id, order_id, amount, currency, source, reason, status, paid_coins, bonus_coins, created_at, succeeded_at, unlock_synced_at)
select id, id, price_amount, currency, 'operator', refund_reason, 'succeeded', coalesce(coins, 0), coalesce(bonus_coins, 0),
       coalesce(refunded_at, updated_at), coalesce(refunded_at, updated_at), unlock_synced_at
  from payment.orders where status = 'refunded';
