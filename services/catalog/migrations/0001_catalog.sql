-- Trusted extensions since PostgreSQL 13: a database owner may create them without superuser.
create extension if not exists pg_trgm;
create extension if not exists unaccent;

create schema if not exists catalog;

-- unaccent() is only STABLE (its dictionary could change), so it cannot feed an index or a stored
-- column. Pinning the dictionary by name makes the result a pure function of the text.
create function catalog.fold(value text) returns text
  language sql immutable parallel safe strict
  as $$ select lower(public.unaccent('public.unaccent'::regdictionary, value)) $$;

-- Categories, in the order the storefront shows them.
create table catalog.tags (
  id text primary key,
  name text not null,
  position integer not null
);
create unique index tags_name on catalog.tags (lower(name));

create table catalog.videos (
  id text primary key,
  title text not null,
  description text not null default '',
  -- Storage key of the cover image under public/; null until one is set or a poster stands in.
  cover_key text,
  free_episodes integer not null default 5 check (free_episodes >= 0),
  price_coins integer not null default 50 check (price_coins >= 0),
  episode_count integer not null default 0,
  play_count bigint not null default 0,
  created_at timestamptz not null default now(),
  -- Maintained by the service whenever title, description or tags change (tags live in another
  -- table, so a generated column cannot see them).
  search_document tsvector not null default ''::tsvector,
  search_words text not null default ''
);
create unique index videos_title on catalog.videos (lower(title));
create index videos_search on catalog.videos using gin (search_document);
create index videos_search_words on catalog.videos using gin (search_words gin_trgm_ops);
create index videos_popular on catalog.videos (play_count desc, created_at desc);

create table catalog.video_tags (
  video_id text not null references catalog.videos (id) on delete cascade,
  tag_id text not null references catalog.tags (id) on delete cascade,
  primary key (video_id, tag_id)
);
create index video_tags_tag on catalog.video_tags (tag_id);

create table catalog.episodes (
  id text primary key,
  video_id text not null references catalog.videos (id) on delete cascade,
  number integer not null check (number >= 1),
  title text not null,
  duration_seconds integer not null default 0,
  status text not null default 'pending' check (status in ('pending', 'ready', 'failed')),
  -- The upload the current source came from; a transcode result for an older upload is ignored.
  upload_id text not null,
  source_key text not null,
  media_prefix text,
  error text,
  created_at timestamptz not null default now(),
  unique (video_id, number)
);
create index episodes_unfinished on catalog.episodes (created_at) where status = 'pending';

-- The carousel ("Featured Videos") and the homepage sections, each an ordered list of series.
create table catalog.sections (
  id text primary key,
  title text not null,
  kind text not null check (kind in ('carousel', 'section')),
  position integer not null
);

create table catalog.section_items (
  section_id text not null references catalog.sections (id) on delete cascade,
  video_id text not null references catalog.videos (id) on delete cascade,
  position integer not null,
  primary key (section_id, video_id)
);

-- One row per viewer, episode and UTC day: the first history record of the day counts one play.
create table catalog.play_days (
  user_id text not null,
  episode_id text not null,
  day date not null,
  primary key (user_id, episode_id, day)
);

-- The demo catalog is created once per data directory; this row says how far it got.
create table catalog.demo_seed (
  id integer primary key check (id = 1),
  started_at timestamptz not null default now(),
  finished_at timestamptz
);
