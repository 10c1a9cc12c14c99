-- The rankings and the viewers' places, kept by the catalog's consumers from the events (rankings.ts).

-- Counted plays per series and UTC hour: "top" sums the last 7 days, "trending" compares the last
-- 24 hours with the 24 before. A series keeps at most 8 days of hours: older ones are dropped as
-- new hours are written.
create table catalog.play_hours (
  video_id text not null references catalog.videos (id) on delete cascade,
  hour timestamptz not null,
  plays integer not null check (plays > 0),
  primary key (video_id, hour)
);
create index play_hours_by_hour on catalog.play_hours (hour) include (video_id, plays);

-- Where each viewer is in each series they played (the latest history record): continue watching,
-- and the feed's "not seen yet" and resume points.
create table catalog.viewer_series (
  user_id text not null,
  video_id text not null references catalog.videos (id) on delete cascade,
  episode_id text not null,
  position_seconds integer not null,
  updated_at timestamptz not null,
  primary key (user_id, video_id)
);
create index viewer_series_latest on catalog.viewer_series (user_id, updated_at desc, video_id);

-- How much each viewer likes each tag: one point per series of that tag they started, three while
-- it is in their list. The feed puts the series of their best-liked tags first.
create table catalog.viewer_tags (
  user_id text not null,
  tag_id text not null references catalog.tags (id) on delete cascade,
  weight integer not null,
  primary key (user_id, tag_id)
);

-- "new": the newest listed series first.
create index videos_newest on catalog.videos (created_at desc, id desc);
