-- Renewals like Stripe's Smart Retries and the app stores' grace period (issue 25).

-- Calendar billing: a plan of whole months (monthly 1, yearly 12) renews on the same day of the month,
-- clamped to the month's end and anchored to the day it started (Jan 31 -> Feb 28/29 -> Mar 31);
-- plans without months (weekly) renew every period_days. Orders and subscriptions copy the term.
alter table payment.plans add column period_months integer check (period_months > 0);
alter table payment.plans add constraint plans_months_only_for_vip check (period_months is null or kind = 'vip');
update payment.plans set period_months = 1 where id = 'vip-monthly';
update payment.plans set period_months = 12 where id = 'vip-yearly';
alter table payment.orders add column period_months integer check (period_months > 0);
update payment.orders set period_months = 1 where plan_id = 'vip-monthly';
update payment.orders set period_months = 12 where plan_id = 'vip-yearly';
alter table payment.subscriptions add column period_months integer check (period_months > 0);
-- The day of the month (1-31, UTC) a calendar subscription renews on; a short month clamps it.
alter table payment.subscriptions add column billing_day integer check (billing_day between 1 and 31);
update payment.subscriptions set period_months = 1, billing_day = extract(day from renews_at at time zone 'UTC') where plan_id = 'vip-monthly';
update payment.subscriptions set period_months = 12, billing_day = extract(day from renews_at at time zone 'UTC') where plan_id = 'vip-yearly';

-- The interface language of the buyer (en, es, fy, dy, pt), as their last pay call sent it: the
-- language of the receipts, renewal notices and reminders they are mailed.
alter table payment.orders add column language text not null default 'en' check (language in ('en', 'es', 'fy', 'dy', 'pt'));
alter table payment.subscriptions add column language text not null default 'en' check (language in ('en', 'es', 'fy', 'dy', 'pt'));

-- Mails about money, each sent once: claimed here by a key naming what it is about (a receipt's
-- order, a failed renewal's or a reminder's period) before it goes out, let go if sending failed.
create table payment.mails_sent (
  key text primary key,
  kind text not null check (kind in ('receipt', 'renewal_failed', 'renewal_reminder', 'refund')),
  user_id text not null,
  sent_at timestamptz not null
);

-- Reminders due: live subscriptions of a plan in months, by the time they renew.
create index subscriptions_reminders on payment.subscriptions (renews_at) where status = 'active' and period_months is not null and not cancel_at_period_end;
