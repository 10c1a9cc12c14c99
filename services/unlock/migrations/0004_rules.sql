-- Rules the database holds, whatever code path writes (issue 25).

-- A check-in pays at most once per 20 hours of real time, whatever time zone the viewer names: a
-- zone further east starts a new calendar day at once. Every check-in written is held to it here,
-- under the lock of the user's wallet row (which every wallet change takes, so two writers queue
-- and the second sees the first). The service checks the same under that lock first and answers
-- 409. Check-ins a guest brings to the member it logs in as are moved, not written: they keep their times.
create function unlock.checkin_20_hours_after_the_last() returns trigger language plpgsql as $$
begin
  perform 1 from unlock.wallets where user_id = new.user_id for update;
  if exists (select 1 from unlock.checkins where user_id = new.user_id and checked_in_at > new.checked_in_at - interval '20 hours') then
    raise exception 'a check-in comes at least 20 hours after the last one'
      using errcode = 'check_violation', constraint = 'checkins_20_hours_apart';
  end if;
  return new;
end $$;
create trigger checkins_20_hours_apart before insert on unlock.checkins
  for each row execute function unlock.checkin_20_hours_after_the_last();
