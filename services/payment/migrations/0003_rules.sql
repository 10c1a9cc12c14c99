-- Rules the database holds, whatever code path writes (issue 25).

-- The first-purchase offer is paid once per person. Two offer orders paid through 3-D Secure or
-- PayPal both pass the checks before the money moves; the second to settle breaks this index, and
-- the settlement then credits that payment at the regular rate instead (settlement.ts). An order paid
-- on the offer beside an earlier one before this rule keeps what it bought, but only the earliest
-- counts as the offer.
update payment.orders later set first_purchase_only = false
 where later.first_purchase_only
   and later.status in ('succeeded', 'refunded')
   and exists (
     select 1 from payment.orders earlier
      where earlier.user_id = later.user_id
        and earlier.first_purchase_only
        and earlier.status in ('succeeded', 'refunded')
        and (earlier.succeeded_at, earlier.id) < (later.succeeded_at, later.id));
create unique index orders_one_first_purchase on payment.orders (user_id)
  where first_purchase_only and status in ('succeeded', 'refunded');

-- A subscription renews only with a card kept for it: one bought through PayPal's redirect keeps
-- none, so it ends with its period, and shows and is mailed that way.
update payment.subscriptions set cancel_at_period_end = true
 where not cancel_at_period_end and (customer_id is null or payment_method_id is null);
alter table payment.subscriptions add constraint subscriptions_renew_with_a_card
  check (cancel_at_period_end or (customer_id is not null and payment_method_id is not null));
