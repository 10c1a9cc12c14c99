-- Operators create plans and retire them (issue 25). A retired plan is no longer listed or sold, for
-- good: it cannot be put on sale again. Live subscriptions keep it and renew on its terms.
alter table payment.plans add column retired_at timestamptz;
alter table payment.plans add constraint plans_retired_not_on_sale check (retired_at is null or not active);
