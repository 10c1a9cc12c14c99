-- VIP days an operator grants (issue 25's operator tools, POST /api/admin/users/:id/grants). Days
-- granted to a live VIP move its renews_at later: the next charge comes that much later. A user with
-- none gets a VIP of its own on the plan below: free, never sold (retired), canceled at its period end
-- from the start, as it keeps no card; it ends when its days do, unless the user buys a VIP meanwhile,
-- whose period then follows the granted days.
alter table payment.plans drop constraint plans_price_amount_check;
alter table payment.plans add constraint plans_price_amount_check check (price_amount > 0 or id = 'vip-granted');
alter table payment.subscriptions drop constraint subscriptions_price_amount_check;
alter table payment.subscriptions add constraint subscriptions_price_amount_check
  check (price_amount > 0 or (plan_id = 'vip-granted' and cancel_at_period_end));
insert into payment.plans (id, kind, title, price_amount, period_days, active, position, retired_at)
  values ('vip-granted', 'vip', 'VIP (granted)', 0, 1, false, 99, now());
