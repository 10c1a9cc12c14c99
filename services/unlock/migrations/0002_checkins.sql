-- Daily check-ins: one row per user and calendar day (in the viewer's time zone), written in the
-- same transaction as the ledger entry `checkin:<user>:<day>` that pays it. The primary key makes a
-- second check-in of a day impossible, however many calls race.
create table unlock.checkins (
  user_id text not null references unlock.wallets (user_id),
  day date not null,
  streak integer not null check (streak >= 1),
  coins integer not null check (coins > 0),
  time_zone text not null,
  checked_in_at timestamptz not null,
  primary key (user_id, day)
);
