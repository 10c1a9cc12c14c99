-- Verified email (issue 26). `verified_email` is the address its owner proved to be theirs (a link
-- mailed to it, a password reset through it, or a provider that vouched for it). The email counts as
-- verified only while it is that same address, so an email that changes is unverified again by
-- construction, whatever code changes it.
alter table users.users add column verified_email text;
-- A member who signs in with Google or Facebook had the email vouched for by the provider.
update users.users u set verified_email = u.email
 where u.kind = 'member' and exists (select 1 from users.identities i where i.user_id = u.id);

-- A verification link, found by the SHA-256 of its token: used once, for 24 hours, and only for the
-- address it was mailed to. `created_at` paces the resends.
create table users.email_verifications (
  token_hash text primary key,
  user_id text not null references users.users (id) on delete cascade,
  email text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index email_verifications_user on users.email_verifications (user_id, created_at desc);
