-- Refunds and disputes reverse what a payment bought (issue 25). Coins go back first from the
-- order's own bonus lot, then paid coins, then other bonus coins; when the wallet holds fewer than
-- the refund takes, the user's unlocks paid for since the order was credited are revoked, latest
-- first, each giving its price back (`revoke`), so the wallet never goes below zero. A dispute won
-- gives back what its suspension took (`restore`) and unlocks again what it revoked, as far as the
-- wallet pays for them.
alter table unlock.ledger drop constraint ledger_kind_check;
alter table unlock.ledger add constraint ledger_kind_check
  check (kind in ('purchase', 'bonus', 'unlock', 'refund', 'expiry', 'checkin', 'merge_out', 'merge_in', 'revoke', 'restore'));

-- Each reversal once, by the payment service's reference (refund:<id>, dispute:<id>), in the wallet
-- that held the coins. `restored` once a dispute was won; a restore that comes before its reversal
-- (two sweeps racing) leaves a restored row with nothing taken, so the late reversal does nothing.
create table unlock.reversals (
  reference text primary key,
  order_id text not null,
  user_id text not null,
  paid_coins integer not null check (paid_coins >= 0),
  bonus_coins integer not null check (bonus_coins >= 0),
  unlocks_revoked integer not null check (unlocks_revoked >= 0),
  state text not null check (state in ('reversed', 'restored')),
  reversed_at timestamptz not null,
  restored_at timestamptz
);

-- The unlocks a reversal revoked, as they were, so a dispute won can unlock them again.
create table unlock.revoked_unlocks (
  reversal text not null references unlock.reversals (reference),
  user_id text not null,
  episode_id text not null,
  video_id text not null,
  episode_number integer not null,
  price_coins integer not null,
  unlocked_at timestamptz not null,
  revoked_at timestamptz not null,
  restored_at timestamptz,
  primary key (reversal, episode_id)
);
create index unlocks_latest on unlock.unlocks (user_id, unlocked_at desc) where price_coins > 0;
