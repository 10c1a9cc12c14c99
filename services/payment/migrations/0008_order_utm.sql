-- The campaign an order came from (issue 27): the utm_* fields the storefront kept from the landing URL
-- and sent with the order, as it sends the click ids. The order's events carry them, and the analyst's
-- summary counts the order under its own utm_campaign.
alter table payment.orders add column utm_source text;
alter table payment.orders add column utm_medium text;
alter table payment.orders add column utm_campaign text;
alter table payment.orders add column utm_term text;
alter table payment.orders add column utm_content text;
