create schema if not exists users;

create table users.users (
  id text primary key,
  kind text not null check (kind in ('guest', 'member')),
  email text,
  password_hash text,
  created_at timestamptz not null default now(),
  registered_at timestamptz,
  check ((kind = 'guest') = (email is null))
);
-- One member per email whatever its case: concurrent registrations of one email create one member.
create unique index users_email on users.users (lower(email)) where email is not null;

-- Sessions are random 256-bit tokens; only their SHA-256 is kept.
create table users.sessions (
  token_hash text primary key,
  user_id text not null references users.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index sessions_user on users.sessions (user_id) where revoked_at is null;

create table users.password_resets (
  token_hash text primary key,
  user_id text not null references users.users (id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz
);

create table users.favorites (
  user_id text not null references users.users (id) on delete cascade,
  video_id text not null,
  created_at timestamptz not null default now(),
  primary key (user_id, video_id)
);
create index favorites_recent on users.favorites (user_id, created_at desc);

-- One row per video: where the viewer is in that series.
create table users.history (
  user_id text not null references users.users (id) on delete cascade,
  video_id text not null,
  episode_id text not null,
  episode_number integer not null,
  position_seconds integer not null,
  updated_at timestamptz not null default now(),
  primary key (user_id, video_id)
);
create index history_recent on users.history (user_id, updated_at desc);
