-- A guest who logs in to an account brings its wallet (user.logged_in with mergedGuestId): its coins
-- leave through a `merge_out` entry and arrive through a `merge_in` entry, the bonus lots move whole
-- (each keeping its expiry), and so do its unlocks and check-ins.
alter table unlock.ledger drop constraint ledger_kind_check;
alter table unlock.ledger add constraint ledger_kind_check
  check (kind in ('purchase', 'bonus', 'unlock', 'refund', 'expiry', 'checkin', 'merge_out', 'merge_in'));
alter table unlock.ledger drop constraint ledger_check;
alter table unlock.ledger add constraint ledger_check check (
  case when kind in ('unlock', 'refund', 'expiry', 'merge_out') then paid_delta <= 0 and bonus_delta <= 0
       else paid_delta >= 0 and bonus_delta >= 0 end
);

-- Every merge of a guest into a member, even one that found nothing to move: it says where the
-- guest's coins went. Entries of the guest up to `last_entry_id` were carried to the member, so a
-- refund of an order the guest bought takes its coins back from the member; a credit that reached
-- the guest after the merge is carried over when the payment service credits the member for it.
create table unlock.guest_merges (
  id bigint generated always as identity primary key,
  -- merge:<event id> for a login, merge:<credit reference> for a credit carried over later.
  reference text not null unique,
  guest_id text not null,
  member_id text not null,
  last_entry_id bigint,
  coins integer not null check (coins >= 0),
  bonus_coins integer not null check (bonus_coins >= 0),
  unlocks integer not null check (unlocks >= 0),
  checkins integer not null check (checkins >= 0),
  merged_at timestamptz not null
);
create index guest_merges_by_guest on unlock.guest_merges (guest_id, id);
