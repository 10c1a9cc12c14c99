-- Revenue net of refunds (issue 25): `order.refunded` adds the money that went back, counted on the
-- day of the refund under the order's attribution, so the summary shows revenue gross and net side by side.
alter table analytics.daily add column refunded_amount bigint not null default 0;
