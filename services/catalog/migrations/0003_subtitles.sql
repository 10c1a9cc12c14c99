-- WebVTT subtitles, one file per episode and interface language (en, es, fy = French, dy = German,
-- pt). The file is in media storage under storage_key, a fresh key per upload, so a replaced file
-- is never served from a cache under the old URL; the row is written only once the file is stored.
create table catalog.subtitles (
  episode_id text not null references catalog.episodes (id) on delete cascade,
  lang text not null check (lang in ('en', 'es', 'fy', 'dy', 'pt')),
  storage_key text not null,
  bytes integer not null check (bytes > 0),
  cues integer not null check (cues > 0),
  uploaded_at timestamptz not null default now(),
  primary key (episode_id, lang)
);
