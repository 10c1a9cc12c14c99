import type { Database } from '@cliffhanger/platform';

// A catalog shaped like a short-drama store's, made in a few statements at any size: titles from
// an epithet, a role and a twist ("Runaway Heiress's Revenge", "The Vow of the Cold CEO"), 2 or 3
// of 24 categories each, a description, play counts with a long tail (and many ties), one series
// in 50 not listed yet. The search scale test and bench/search.bench.ts seed it.

const EPITHETS = [
  'Secret', 'Hidden', 'Runaway', 'Contract', 'Fake', 'Pregnant', 'Cold', 'Ruthless', 'Forbidden', 'Stolen',
  'Lost', 'Reborn', 'Divorced', 'Rejected', 'Cursed', 'Masked', 'Twin', 'Wicked', 'Sweet', 'Silent',
  'Midnight', 'Golden', 'Broken', 'Vengeful', 'Innocent', 'Substitute', 'Exiled', 'Mafia', 'Royal', 'Scarlet',
  'Crimson', 'Fallen', 'Jealous', 'Unwanted', 'Arranged', 'Mysterious', 'Eternal', 'Wild', 'Shattered', 'Blind',
  'Possessive', 'Heartless', 'Ice-Cold', 'Beloved', 'Dangerous', 'Untamed', 'Disguised', 'Abandoned', 'Fearless', 'Lucky',
  'Outcast', 'Accidental', 'Sleeping', 'Vanished', 'Crowned', 'Ruined', 'Shameless', 'Unbroken', 'Tempted', 'Wandering',
];
const ROLES = [
  'Bride', 'Wife', 'Heiress', 'CEO', 'King', 'Queen', 'Mate', 'Husband', 'Heir', 'Princess',
  'Prince', 'Doctor', 'Bodyguard', 'Assistant', 'Maid', 'Daughter', 'Son', 'Twins', 'Lover', 'Fiancée',
  'Empress', 'Emperor', 'Duke', 'Luna', 'Alpha', 'Vampire', 'Witch', 'Warrior', 'General', 'Chef',
  'Tycoon', 'Boss', 'Billionaire', 'Mistress', 'Widow', 'Stepmother', 'Sister', 'Nanny', 'Secretary', 'Detective',
  'Surgeon', 'Pianist', 'Dragon', 'Wolf', 'Star', 'Idol', 'Lawyer', 'Pilot', 'Hacker', 'Legend',
  'Sheriff', 'Cowboy', 'Knight', 'Sorceress', 'Assassin', 'Spy', 'Actress', 'Designer', 'Professor', 'Student',
  'Matriarch', 'Baron', 'Countess', 'Hunter', 'Captain', 'Mermaid', 'Healer', 'Orphan', 'Gambler', 'Heartbreaker',
];
const TWISTS = [
  'Revenge', 'Return', 'Second Chance', 'Redemption', 'Comeback', 'Awakening', 'Betrayal', 'Promise', 'Vow', 'Escape',
  'Crown', 'Throne', 'Inheritance', 'Deal', 'Game', 'Mistake', 'Lie', 'Heart', 'Kiss', 'Wedding',
  'Divorce', 'Regret', 'Obsession', 'Bargain', 'Curse', 'Reign', 'Rise', 'Downfall', 'Rebirth', 'Debt',
  'Choice', 'Oath', 'Gamble', 'Legacy', 'Masquerade', 'Ransom', 'Sacrifice', 'Truce', 'Affair', 'Deception',
  'Fortune', 'Destiny', 'Shadow', 'Storm', 'Reckoning', 'Homecoming', 'Confession', 'Trap', 'Miracle', 'Secret Baby',
];
const TURNS = [
  'love becomes a weapon', 'a family secret comes out', 'money cannot buy forgiveness', 'the past refuses to stay buried',
  'one contract changes everything', 'a wedding turns into a war', 'the wrong twin says yes', 'an old promise comes due',
  'the whole city takes sides', 'a lie grows too big to hide', 'power has a price', 'the heart wants what it cannot have',
];
export const SEARCH_CATEGORIES = [
  'Romance', 'CEO', 'Revenge', 'Werewolf', 'Rebirth', 'Palace', 'Mafia', 'Fantasy', 'Family', 'Comedy', 'Thriller', 'Billionaire',
  'Vampire', 'Sweet Love', 'Time Travel', 'Marriage', 'Campus', 'Historical', 'Urban', 'Hidden Identity', 'Enemies to Lovers',
  'Second Chance', 'Cinderella', 'Secret Baby',
];
// Every (epithet, role, twist) at most once: series i takes combination i × 7919 mod 210,000, a
// bijection, so titles stay unique (the catalog requires it) up to 210,000 series.
const COMBINATIONS = EPITHETS.length * ROLES.length * TWISTS.length;
export const MAX_SEARCH_CATALOG = COMBINATIONS;

/** The id of series number `i` of the seeded catalog. */
export const seededId = (i: number) => `series-${i}`;

/**
 * Adds series number `from` to `to - 1`, their categories and what search reads (the same
 * expressions as the search repository's refreshSearch). Run `analyze` after a large batch.
 */
export async function seedSearchCatalog(database: Database, from: number, to: number): Promise<void> {
  if (to > COMBINATIONS) throw new Error(`the seeded catalog holds at most ${COMBINATIONS} series`);
  await database.rawTransaction(async (session) => {
    await session.query(
      `insert into catalog.tags (id, name, position)
       select lower(replace(name, ' ', '-')), name, 100 + position from unnest($1::text[]) with ordinality as t(name, position)
       on conflict do nothing`,
      [SEARCH_CATEGORIES],
    );
    await session.query(
      `with words as (select $3::text[] as epithets, $4::text[] as roles, $5::text[] as twists, $6::text[] as turns, $7::text[] as categories),
       numbered as (
         select i, (i::bigint * 7919) % ${COMBINATIONS} as j,
                array[1 + i % 24, 1 + (i * 7 + 5) % 24] || case when i % 3 = 0 and (i * 11 + 13) % 24 not in (i % 24, (i * 7 + 5) % 24)
                                                           then array[1 + (i * 11 + 13) % 24] else '{}'::int[] end as picked
           from generate_series($1::int, $2::int - 1) as i),
       parts as (
         select i, picked, epithets[1 + j % 60] as epithet, roles[1 + (j / 60) % 70] as role, twists[1 + j / 4200] as twist,
                turns[1 + i % 12] as turn,
                (select string_agg(categories[p], ' ' order by p) from unnest(picked) as p) as names
           from numbered, words),
       series as (
         select i, picked, names,
                case i % 4 when 0 then epithet || ' ' || role || '''s ' || twist
                           when 1 then 'The ' || twist || ' of the ' || epithet || ' ' || role
                           when 2 then 'My ' || epithet || ' ' || role || ': ' || twist
                           else twist || ' for the ' || epithet || ' ' || role end as title,
                'When the ' || lower(epithet) || ' ' || lower(role) || ' meets ' || lower(twist) || ', ' || turn || '.' as description
           from parts)
       insert into catalog.videos (id, title, description, episode_count, play_count, created_at, search_document, search_words)
       select 'series-' || i, title, description,
              case when i % 50 = 49 then 0 else 20 + i % 60 end,
              200000 / (1 + (i::bigint * 2654435761) % 9973),
              timestamptz '2026-01-01 00:00:00+00' + make_interval(mins => i / 3),
              setweight(to_tsvector('english', catalog.fold(title)), 'A')
                || setweight(to_tsvector('english', catalog.fold(names)), 'B')
                || setweight(to_tsvector('english', catalog.fold(description)), 'C'),
              catalog.fold(title || ' ' || names)
         from series`,
      [from, to, EPITHETS, ROLES, TWISTS, TURNS, SEARCH_CATEGORIES],
    );
    await session.query(
      `insert into catalog.video_tags (video_id, tag_id)
       select 'series-' || i, lower(replace(($3::text[])[p], ' ', '-'))
         from generate_series($1::int, $2::int - 1) as i,
              unnest(array[1 + i % 24, 1 + (i * 7 + 5) % 24] || case when i % 3 = 0 then array[1 + (i * 11 + 13) % 24] else '{}'::int[] end) as p
       on conflict do nothing`,
      [from, to, SEARCH_CATEGORIES],
    );
  });
}
