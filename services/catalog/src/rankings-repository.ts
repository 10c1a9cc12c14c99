import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
// A series is listed once it has an episode and is not hidden, as everywhere in the catalog.
import { LISTED } from './repository.ts';

/**
 * The SQL of the rankings, the viewers' places and the feed (tables of migrations/0004_rankings.sql),
 * beside the catalog's other repositories (repository.ts names them). Consumers write these tables
 * from the events; the calls only read them.
 */

const HOUR_MS = 3_600_000;
/** Hours a series keeps in play_hours: the 7 days of "top", and one more for the hour in progress. */
const KEPT_HOURS = 8 * 24;
/** "top" counts the 168 hours up to and including the current one. */
const TOP_HOURS = 7 * 24;
/** "trending" compares the 24 hours up to and including the current one with the 24 before them. */
const TREND_HOURS = 24;


/** The start of the UTC hour `time` falls in. */
export const hourOf = (time: Date | string) => new Date(Math.floor(new Date(time).getTime() / HOUR_MS) * HOUR_MS);
const hoursBefore = (hour: Date, hours: number) => new Date(hour.getTime() - hours * HOUR_MS);
const iso = (time: Date) => time.toISOString();

/** Each listed series' plays in the last 24 hours minus those of the 24 before: how fast it is rising. */
const growthSince = (now: Date) => {
  const current = hourOf(now);
  const recentFrom = hoursBefore(current, TREND_HOURS - 1);
  const previousFrom = hoursBefore(recentFrom, TREND_HOURS);
  return sql`
    select video_id,
           coalesce(sum(plays) filter (where hour >= ${iso(recentFrom)}::timestamptz), 0) as recent,
           coalesce(sum(plays) filter (where hour < ${iso(recentFrom)}::timestamptz), 0) as previous
      from catalog.play_hours
     where hour >= ${iso(previousFrom)}::timestamptz and hour <= ${iso(current)}::timestamptz
     group by video_id`;
};

export interface FeedRow {
  video_id: string;
  /** The series' first free episode that is ready, or null when it has none. */
  start_episode_id: string | null;
  /** Where this viewer stopped in the series, or null when they have not played it. */
  resume_episode_id: string | null;
}

/** A viewer's history record, as a play of its episode. */
export interface Play {
  userId: string;
  episodeId: string;
  videoId: string;
  time: string;
}

/** A viewer's history record, as their place in a series. */
export interface Viewing {
  userId: string;
  videoId: string;
  episodeId: string;
  positionSeconds: number;
  time: string;
}

export const rankingsRepository = {
  /**
   * Counts viewers' plays of episodes once per day (UTC, each `time`'s): the day kept per viewer and
   * episode, and, the first time only, the series' play count and its hour's plays raised. A
   * delivery's plays go in one statement (a consumer's statements are most of the database's work
   * under many viewers); an hour a play opens drops the series' hours no ranking reads any more.
   */
  async countPlays(db: Executor, plays: Play[]): Promise<void> {
    if (plays.length === 0) return;
    const column = <T>(of: (play: Play) => T) => sql.param(plays.map(of));
    await db.execute(sql`
      with input as (
        select distinct on (user_id, episode_id, day) user_id, episode_id, video_id, day, hour
          from unnest(${column((play) => play.userId)}::text[], ${column((play) => play.episodeId)}::text[], ${column((play) => play.videoId)}::text[],
                      ${column((play) => play.time.slice(0, 10))}::date[], ${column((play) => iso(hourOf(play.time)))}::timestamptz[])
               with ordinality as play(user_id, episode_id, video_id, day, hour, n)
         order by user_id, episode_id, day, n
      ), first as (
        insert into catalog.play_days (user_id, episode_id, day) select user_id, episode_id, day from input
        on conflict do nothing returning user_id, episode_id, day
      ), played as (
        select i.video_id, i.hour, count(*)::int as plays from first f join input i using (user_id, episode_id, day) group by i.video_id, i.hour
      ), counted as (
        update catalog.videos v set play_count = v.play_count + p.plays
          from (select video_id, sum(plays)::int as plays from played group by video_id) p
         where v.id = p.video_id returning v.id
      ), hours as (
        insert into catalog.play_hours (video_id, hour, plays)
        select p.video_id, p.hour, p.plays from played p join counted c on c.id = p.video_id
        on conflict (video_id, hour) do update set plays = catalog.play_hours.plays + excluded.plays
        returning video_id, hour, xmax = 0 as opened
      )
      delete from catalog.play_hours h using hours o
       where o.opened and h.video_id = o.video_id and h.hour < o.hour - ${KEPT_HOURS} * interval '1 hour'`);
  },

  /** Most played in the 7 days up to `now`, to the hour; ties go to the more played overall. */
  topIds: (db: Executor, now: Date, offset: number, limit: number) =>
    queryRows<{ id: string }>(db, sql`
      select v.id from (
        select video_id, sum(plays) as plays from catalog.play_hours
         where hour >= ${iso(hoursBefore(hourOf(now), TOP_HOURS - 1))}::timestamptz and hour <= ${iso(hourOf(now))}::timestamptz
         group by video_id) p
      join catalog.videos v on v.id = p.video_id
      where ${LISTED}
      order by p.plays desc, v.play_count desc, v.id offset ${offset} limit ${limit}`),

  /** The series whose plays rose most from the 24 hours before to the last 24 (only those that rose). */
  trendingIds: (db: Executor, now: Date, offset: number, limit: number) =>
    queryRows<{ id: string }>(db, sql`
      select v.id from (${growthSince(now)}) g
      join catalog.videos v on v.id = g.video_id
      where ${LISTED} and g.recent > g.previous
      order by g.recent - g.previous desc, g.recent desc, v.play_count desc, v.id offset ${offset} limit ${limit}`),

  newestIds: (db: Executor, offset: number, limit: number) =>
    queryRows<{ id: string }>(db, sql`
      select v.id from catalog.videos v where ${LISTED} order by v.created_at desc, v.id desc offset ${offset} limit ${limit}`),

  /** The series a viewer played, the latest first. */
  continueIds: (db: Executor, userId: string, offset: number, limit: number) =>
    queryRows<{ id: string }>(db, sql`
      select s.video_id as id from catalog.viewer_series s join catalog.videos v on v.id = s.video_id
       where s.user_id = ${userId} and ${LISTED}
       order by s.updated_at desc, s.video_id offset ${offset} limit ${limit}`),

  /**
   * Keeps viewers' latest places in series (a record older than the one kept, arriving late, changes
   * nothing), and adds `points` to their liking of a series' tags the first time they play it. A
   * delivery's records go in one statement: the latest per viewer and series is kept, and a row
   * inserted, not updated, has no `xmax` (PostgreSQL's mark of the transaction that replaced it).
   */
  async recordViewings(db: Executor, viewings: Viewing[], points: number): Promise<void> {
    if (viewings.length === 0) return;
    const column = <T>(of: (viewing: Viewing) => T) => sql.param(viewings.map(of));
    await db.execute(sql`
      with input as (
        select distinct on (user_id, video_id) user_id, video_id, episode_id, position_seconds, updated_at
          from unnest(${column((viewing) => viewing.userId)}::text[], ${column((viewing) => viewing.videoId)}::text[], ${column((viewing) => viewing.episodeId)}::text[],
                      ${column((viewing) => viewing.positionSeconds)}::int[], ${column((viewing) => viewing.time)}::timestamptz[])
               with ordinality as viewing(user_id, video_id, episode_id, position_seconds, updated_at, n)
         order by user_id, video_id, updated_at desc, n desc
      ), kept as (
        insert into catalog.viewer_series (user_id, video_id, episode_id, position_seconds, updated_at)
        select i.user_id, i.video_id, i.episode_id, i.position_seconds, i.updated_at from input i join catalog.videos v on v.id = i.video_id
        on conflict (user_id, video_id) do update
          set episode_id = excluded.episode_id, position_seconds = excluded.position_seconds, updated_at = excluded.updated_at
          where catalog.viewer_series.updated_at <= excluded.updated_at
        returning user_id, video_id, xmax = 0 as first
      )
      insert into catalog.viewer_tags (user_id, tag_id, weight)
      select k.user_id, t.tag_id, count(*)::int * ${points} from kept k join catalog.video_tags t on t.video_id = k.video_id
       where k.first group by k.user_id, t.tag_id
      on conflict (user_id, tag_id) do update set weight = catalog.viewer_tags.weight + excluded.weight`);
  },

  /** Adds `points` to the viewer's liking of every tag of a series (negative to take them back). */
  async likeTagsOf(db: Executor, userId: string, videoId: string, points: number): Promise<void> {
    await db.execute(sql`
      insert into catalog.viewer_tags (user_id, tag_id, weight)
      select ${userId}, tag_id, ${points} from catalog.video_tags where video_id = ${videoId}
      on conflict (user_id, tag_id) do update set weight = catalog.viewer_tags.weight + excluded.weight`);
  },

  /** A guest who logged in: their places (the newer one wins) and likings move to the member. */
  async mergeViewer(db: Executor, guestId: string, memberId: string): Promise<void> {
    await db.execute(sql`
      insert into catalog.viewer_series (user_id, video_id, episode_id, position_seconds, updated_at)
      select ${memberId}, video_id, episode_id, position_seconds, updated_at from catalog.viewer_series where user_id = ${guestId}
      on conflict (user_id, video_id) do update
        set episode_id = excluded.episode_id, position_seconds = excluded.position_seconds, updated_at = excluded.updated_at
        where catalog.viewer_series.updated_at < excluded.updated_at`);
    await db.execute(sql`delete from catalog.viewer_series where user_id = ${guestId}`);
    await db.execute(sql`
      insert into catalog.viewer_tags (user_id, tag_id, weight)
      select ${memberId}, tag_id, weight from catalog.viewer_tags where user_id = ${guestId}
      on conflict (user_id, tag_id) do update set weight = catalog.viewer_tags.weight + excluded.weight`);
    await db.execute(sql`delete from catalog.viewer_tags where user_id = ${guestId}`);
  },

  /**
   * A page of the viewer's feed: series they have not played first, then those rising fastest, then
   * those of the tags they like best, then the most played and the newest. Only series with
   * something to play: a free episode that is ready, or the viewer's own place in it.
   */
  feedRows: (db: Executor, userId: string | null, now: Date, offset: number, limit: number) =>
    queryRows<FeedRow>(db, sql`
      with growth as (${growthSince(now)}),
      liking as (
        select vt.video_id, sum(w.weight) as points
          from catalog.viewer_tags w join catalog.video_tags vt on vt.tag_id = w.tag_id
         where w.user_id = ${userId} and w.weight > 0
         group by vt.video_id)
      select v.id as video_id, start.id as start_episode_id, seen.episode_id as resume_episode_id
        from catalog.videos v
        left join lateral (
          select e.id from catalog.episodes e
           where e.video_id = v.id and e.status = 'ready' and e.number <= v.free_episodes
           order by e.number limit 1) start on true
        left join catalog.viewer_series seen on seen.user_id = ${userId} and seen.video_id = v.id
        left join growth g on g.video_id = v.id
        left join liking l on l.video_id = v.id
       where ${LISTED} and (start.id is not null or seen.episode_id is not null)
       order by seen.video_id is not null, greatest(coalesce(g.recent - g.previous, 0), 0) desc, coalesce(l.points, 0) desc,
                v.play_count desc, v.created_at desc, v.id
       offset ${offset} limit ${limit}`),
};
