-- Failed password logins per account (issue 26), beside the gateway's per-address limit, so a botnet
-- cannot guess one account's password from many addresses. Keyed by the SHA-256 of the lower-cased
-- email tried, whether or not an account has it: an unknown email is slowed like a known one, so the
-- throttle tells nobody which emails are registered.
create table users.login_throttle (
  email_hash text primary key,
  failures integer not null,
  last_failure_at timestamptz not null,
  -- Password logins from browsers unknown to the account are refused until then (429, Retry-After).
  blocked_until timestamptz,
  -- When the owner was told of this run of failures (one mail per run).
  notice_sent_at timestamptz
);

-- Browsers that logged in to an account (by password, or by a password reset): the SHA-256 of the
-- random value of their device cookie. Such a browser is never throttled for that account, so a
-- botnet's failures cannot lock its owner out.
create table users.known_devices (
  device_hash text not null,
  user_id text not null references users.users (id) on delete cascade,
  last_login_at timestamptz not null,
  primary key (device_hash, user_id)
);
create index known_devices_user on users.known_devices (user_id);
