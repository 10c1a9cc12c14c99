-- A renewal's payment key (issue 25): the provider's idempotency key of the off-session charge, written
-- on the period's order before the charge is asked, and kept while its outcome is unknown (cleared when
-- it failed). A process that died after the provider took the money asks again with this same key, so
-- the provider answers the first payment instead of taking the money again, even when the
-- subscription's renews_at moved meanwhile (a guest merge adds the unused days of the VIP it ends).
alter table payment.orders add column payment_key text;
create index orders_renewal_charge_open on payment.orders (subscription_id) where status = 'created' and payment_key is not null;
