-- An operator may hide a series (issue 29, the console): viewers no longer find it anywhere — the
-- homepage, categories, search, the rankings, the feed, the sitemap — and its page answers 404. A
-- series is listed when it has an episode and is not hidden; the copies and partial indexes of
-- "listed" (0005, 0006) follow.
alter table catalog.videos add column hidden boolean not null default false;

create or replace function catalog.video_tags_copy_order() returns trigger language plpgsql as $$
declare
  series catalog.videos%rowtype;
begin
  select * into series from catalog.videos where id = new.video_id;
  if found then
    new.play_count := series.play_count;
    new.created_at := series.created_at;
    new.listed := series.episode_count > 0 and not series.hidden;
  end if;
  return new;
end $$;

create or replace function catalog.videos_share_order() returns trigger language plpgsql as $$
begin
  update catalog.video_tags
     set play_count = new.play_count, created_at = new.created_at, listed = new.episode_count > 0 and not new.hidden
   where video_id = new.id;
  return null;
end $$;

drop trigger videos_share_order on catalog.videos;
create trigger videos_share_order after update of play_count, created_at, episode_count, hidden on catalog.videos
  for each row
  when (old.play_count is distinct from new.play_count or old.created_at is distinct from new.created_at
        or (old.episode_count > 0 and not old.hidden) is distinct from (new.episode_count > 0 and not new.hidden))
  execute function catalog.videos_share_order();

drop index catalog.videos_listed_popular;
create index videos_listed_popular on catalog.videos (play_count desc, created_at desc, id) where episode_count > 0 and not hidden;
