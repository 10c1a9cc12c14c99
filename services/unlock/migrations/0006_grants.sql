-- Operators grant coins with a reason (issue 25): a `grant` ledger entry, as bonus coins in a lot of
-- their own, and this row beside it saying why and who. One row per entry, written in its transaction.
alter table unlock.ledger drop constraint ledger_kind_check;
alter table unlock.ledger add constraint ledger_kind_check
  check (kind in ('purchase', 'bonus', 'unlock', 'refund', 'expiry', 'checkin', 'merge_out', 'merge_in', 'revoke', 'restore', 'grant'));

create table unlock.grants (
  reference text primary key references unlock.ledger (reference),
  user_id text not null,
  coins integer not null check (coins > 0),
  reason text not null check (length(reason) between 1 and 500),
  actor text not null,
  granted_at timestamptz not null
);
create index grants_user on unlock.grants (user_id, granted_at desc);
