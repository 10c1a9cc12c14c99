-- The console's funnel (issue 29): landing → video view → registration → first unlock or paid order
-- → first paid order. `user.registered` and `payment.succeeded` mark the two new steps, the earliest
-- time kept, as for the others; users counted before this migration have neither.
alter table analytics.funnel add column registered_at timestamptz;
alter table analytics.funnel add column first_paid_at timestamptz;
