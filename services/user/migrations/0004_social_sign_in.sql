-- Social sign-in (Google, Facebook): the provider accounts each member signs in with, one member per
-- provider account; a member may have several.
create table users.identities (
  provider text not null,
  subject text not null,
  user_id text not null references users.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (provider, subject)
);
create index identities_user on users.identities (user_id);

-- A sign-in on its way through the provider, found by the SHA-256 of its state: used once, for 10
-- minutes. The PKCE verifier and nonce are kept as they are (the token call and the ID token check
-- need them), and are worth nothing without the code only the browser receives. `browser_binding` is
-- the SHA-256 of the random value in the cookie of the browser that started it.
create table users.oauth_flows (
  state_hash text primary key,
  provider text not null,
  code_verifier text not null,
  nonce text,
  redirect_uri text not null,
  return_to text not null,
  browser_binding text not null,
  expires_at timestamptz not null
);

-- A sign-in the provider vouched for, waiting for the storefront to exchange its one-time code (kept
-- as SHA-256): used once, for 5 minutes, only by the browser that started it (its binding cookie).
create table users.oauth_codes (
  code_hash text primary key,
  provider text not null,
  subject text not null,
  email text,
  browser_binding text not null,
  expires_at timestamptz not null
);
