import { sql } from 'drizzle-orm';
import type { Executor } from '@cliffhanger/platform';
import type { HistoryRow } from './repository.ts';

export const historyRepository = {
  /**
   * Writes many viewers' latest positions in one statement, one array parameter per column
   * whatever the batch's size (no parameter limit to meet). A row older than the stored one is
   * skipped: another process, or a flush that took longer, may come second with an older beat.
   * A user deleted meanwhile (a guest merged into a member, or purged) is skipped, not a failure
   * of everyone's batch. The rows must name each (user, series) once: PostgreSQL refuses to update
   * a row twice.
   */
  async upsertPositions(db: Executor, rows: HistoryRow[]): Promise<void> {
    if (rows.length === 0) return;
    const column = <T>(of: (row: HistoryRow) => T) => sql.param(rows.map(of));
    await db.execute(sql`
      insert into users.history (user_id, video_id, episode_id, episode_number, position_seconds, updated_at)
      select beat.* from unnest(
        ${column((row) => row.userId)}::text[], ${column((row) => row.videoId)}::text[], ${column((row) => row.episodeId)}::text[],
        ${column((row) => row.episodeNumber)}::int[], ${column((row) => row.positionSeconds)}::int[],
        ${column((row) => row.updatedAt.toISOString())}::timestamptz[]) as beat (user_id, video_id, episode_id, episode_number, position_seconds, updated_at)
      where exists (select 1 from users.users account where account.id = beat.user_id)
      on conflict (user_id, video_id) do update set
        episode_id = excluded.episode_id, episode_number = excluded.episode_number,
        position_seconds = excluded.position_seconds, updated_at = excluded.updated_at
      where users.history.updated_at <= excluded.updated_at`);
  },
};
