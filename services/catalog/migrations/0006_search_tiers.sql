-- Search ranked in tiers, each in popularity order (issue 17, "Search that scales"; the rules are in
-- the repository's searchVideoIds). Relevance scores had to be computed for every match before a
-- page could be picked; a tier is a filter, and a filtered popularity order is read from an index
-- and stopped after a page.

-- The title's words alone, so "the title holds every word" is an indexed test with its own
-- statistics (a weight-A test on search_document has neither: the index keeps no weights).
alter table catalog.videos
  add column title_document tsvector generated always as (to_tsvector('english', catalog.fold(title))) stored;
create index videos_title_search on catalog.videos using gin (title_document);

-- Listed series, most played first, then newest, then id: the order of every tier, whole, so a
-- common word's tier is a walk of this index that stops after a page.
create index videos_listed_popular on catalog.videos (play_count desc, created_at desc, id) where episode_count > 0;

-- Typos are corrected against the dictionary below now: no query reads the titles' trigrams.
drop index catalog.videos_search_words;

-- The words of titles and tags, with how many series use each: the dictionary a misspelt keyword
-- word is corrected against (its nearest word by trigrams, through the GiST index). It holds
-- thousands of words where the catalog holds millions of series, so correcting costs the same at
-- any catalog size.
create table catalog.search_terms (
  word text primary key,
  series integer not null
);
create index search_terms_trigrams on catalog.search_terms using gist (word gist_trgm_ops);

-- The words of search_words (already folded: lower case, no accents) of 3 letters or more, once each.
create function catalog.words_of(value text) returns setof text
  language sql immutable parallel safe strict
  as $$ select distinct word from regexp_split_to_table(value, '[^[:alnum:]]+') as word where length(word) >= 3 $$;

-- Adds `delta` uses to every word of every text; a word no series uses any more leaves. Words are
-- taken in order, so two writers touching the same words lock them in the same order.
create function catalog.count_search_terms(texts text[], delta integer) returns void
  language plpgsql as $$
declare
  counted text[];
begin
  with uses as (
    select word, count(*)::integer * delta as series
      from unnest(texts) as t(value), catalog.words_of(t.value) as word
     group by word order by word),
  upserted as (
    insert into catalog.search_terms as terms (word, series) select word, series from uses
    on conflict (word) do update set series = terms.series + excluded.series
    returning terms.word)
  select array_agg(word) into counted from upserted;
  if delta < 0 then
    delete from catalog.search_terms where word = any(counted) and series <= 0;
  end if;
end $$;

-- The dictionary follows search_words whichever code writes it: refreshSearch updates one series
-- (a row trigger, only when the words changed: a counted play does not fire it), a bulk insert is
-- counted once per statement.
create function catalog.search_terms_added() returns trigger language plpgsql as $$
begin
  perform catalog.count_search_terms(array(select search_words from added), 1);
  return null;
end $$;
create trigger search_terms_added after insert on catalog.videos
  referencing new table as added for each statement execute function catalog.search_terms_added();

create function catalog.search_terms_removed() returns trigger language plpgsql as $$
begin
  perform catalog.count_search_terms(array(select search_words from removed), -1);
  return null;
end $$;
create trigger search_terms_removed after delete on catalog.videos
  referencing old table as removed for each statement execute function catalog.search_terms_removed();

create function catalog.search_terms_changed() returns trigger language plpgsql as $$
begin
  perform catalog.count_search_terms(array[old.search_words], -1);
  perform catalog.count_search_terms(array[new.search_words], 1);
  return null;
end $$;
create trigger search_terms_changed after update of search_words on catalog.videos
  for each row when (old.search_words is distinct from new.search_words)
  execute function catalog.search_terms_changed();

insert into catalog.search_terms (word, series)
select word, count(*) from catalog.videos, catalog.words_of(search_words) as word group by word;
