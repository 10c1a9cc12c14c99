create schema if not exists unlock;

-- A user's coins: what the ledger adds up to. Every change locks this row first (select ... for
-- update), so changes of one wallet run one after another and a balance can never go negative.
create table unlock.wallets (
  user_id text primary key,
  paid_coins integer not null default 0 check (paid_coins >= 0),
  -- The unspent remainder of the user's bonus lots, lapsed ones included until the sweep expires them.
  bonus_coins integer not null default 0 check (bonus_coins >= 0),
  updated_at timestamptz not null default now()
);

-- Append-only: every change of a wallet, with the balances it left. A change that must happen once
-- carries a unique reference (order:<id>, unlock:<user>:<episode>, refund:<id>, expiry:<lot>), so a
-- repeat finds it and does nothing.
create table unlock.ledger (
  id bigint generated always as identity primary key,
  user_id text not null references unlock.wallets (user_id),
  kind text not null check (kind in ('purchase', 'bonus', 'unlock', 'refund', 'expiry', 'checkin')),
  reference text not null unique,
  paid_delta integer not null,
  bonus_delta integer not null,
  paid_balance integer not null check (paid_balance >= 0),
  bonus_balance integer not null check (bonus_balance >= 0),
  created_at timestamptz not null,
  check (
    case when kind in ('unlock', 'refund', 'expiry') then paid_delta <= 0 and bonus_delta <= 0
         else paid_delta >= 0 and bonus_delta >= 0 end
  )
);
create index ledger_user on unlock.ledger (user_id, id);

create function unlock.ledger_is_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'unlock.ledger is append-only';
end $$;
create trigger ledger_append_only before update or delete on unlock.ledger
  for each row execute function unlock.ledger_is_append_only();

-- Bonus coins come in lots that lapse: spent oldest-expiring first, and what is left of a lapsed lot
-- leaves the wallet through an expiry entry.
create table unlock.bonus_lots (
  id bigint generated always as identity primary key,
  user_id text not null references unlock.wallets (user_id),
  granted_by text not null unique references unlock.ledger (reference),
  coins integer not null check (coins > 0),
  remaining integer not null check (remaining >= 0 and remaining <= coins),
  expires_at timestamptz not null
);
create index bonus_lots_spendable on unlock.bonus_lots (user_id, expires_at, id) where remaining > 0;
create index bonus_lots_lapsing on unlock.bonus_lots (expires_at) where remaining > 0;

-- Episodes a user paid for: theirs for good, whatever happens to their VIP.
create table unlock.unlocks (
  user_id text not null,
  episode_id text not null,
  video_id text not null,
  episode_number integer not null,
  price_coins integer not null check (price_coins >= 0),
  unlocked_at timestamptz not null,
  primary key (user_id, episode_id)
);
create index unlocks_by_video on unlock.unlocks (user_id, video_id, episode_number);

-- VIP as the payment service last reported it: every episode may be watched until active_until.
create table unlock.vip (
  user_id text primary key,
  plan_id text not null,
  active_until timestamptz not null,
  cancel_at_period_end boolean not null default false,
  updated_at timestamptz not null default now()
);
