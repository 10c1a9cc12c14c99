-- Search and browsing on indexes at 100,000 series (issue 17, "Search that scales"). Search itself
-- needs no new index: videos_search serves the full-text part, and videos_search_words (trigrams)
-- serves the typo part once it asks with the `<%` operator instead of the word_similarity() function.

-- A category lists its series most played first. Ordering them meant joining every series of the
-- tag and sorting them all, for each page; so video_tags keeps a copy of what that order and
-- "listed" read from the series, and one index walk answers any page, however deep.
alter table catalog.video_tags
  add column play_count bigint not null default 0,
  add column created_at timestamptz not null default now(),
  add column listed boolean not null default false;
update catalog.video_tags vt set play_count = v.play_count, created_at = v.created_at, listed = v.episode_count > 0
  from catalog.videos v
 where v.id = vt.video_id;
create index video_tags_browse on catalog.video_tags (tag_id, play_count desc, created_at desc, video_id) where listed;

-- The copy follows the series whichever code writes it. A series gets its tags in the transaction
-- that creates it (admin.createSeries), before a play can count or an episode be added, so the
-- values read here are the series' own.
create function catalog.video_tags_copy_order() returns trigger language plpgsql as $$
declare
  series catalog.videos%rowtype;
begin
  select * into series from catalog.videos where id = new.video_id;
  if found then
    new.play_count := series.play_count;
    new.created_at := series.created_at;
    new.listed := series.episode_count > 0;
  end if;
  return new;
end $$;
create trigger video_tags_copy_order before insert on catalog.video_tags
  for each row execute function catalog.video_tags_copy_order();

create function catalog.videos_share_order() returns trigger language plpgsql as $$
begin
  update catalog.video_tags
     set play_count = new.play_count, created_at = new.created_at, listed = new.episode_count > 0
   where video_id = new.id;
  return null;
end $$;
create trigger videos_share_order after update of play_count, created_at, episode_count on catalog.videos
  for each row
  when (old.play_count is distinct from new.play_count or old.created_at is distinct from new.created_at
        or (old.episode_count > 0) is distinct from (new.episode_count > 0))
  execute function catalog.videos_share_order();

-- A section (and the homepage's first items of each) in its order, without sorting the section.
create index section_items_order on catalog.section_items (section_id, position, video_id);
