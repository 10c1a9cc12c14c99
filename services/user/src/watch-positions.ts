import { appendEvents, type BatchedEvent, type Database, type EventBus, type RequestContext } from '@cliffhanger/platform';
import { historyRepository } from './history-repository.ts';
import type { HistoryRow } from './repository.ts';

/** While a viewer keeps watching one episode, `history.recorded` goes out at most this often. */
export const HISTORY_EVENT_EVERY_MS = 60_000;
// An episode not heard of for this long is a new start when it comes back (a viewer who closed the tab).
const WATCHING_FORGOTTEN_MS = 10 * 60_000;

export interface Beat {
  userId: string;
  videoId: string;
  episodeId: string;
  episodeNumber: number;
  positionSeconds: number;
}

/**
 * The players' heartbeats, written behind (docs/scaling.md, "What one viewer costs"). A beat only
 * replaces the viewer's latest position for the series in memory; `flush` writes every position
 * held in one multi-row upsert, with the events due, in one transaction. A beat that ends watching
 * (`final`: the viewer left, paused or finished) is written at once. Reads of a viewer's history
 * flush that viewer first, so a viewer always reads their own latest beat from this process.
 *
 * `history.recorded` is due when a viewer starts an episode, ends watching it, and at most once a
 * minute between: play counts (once a day per episode), rankings and analytics need no more.
 * What is lost: a process killed without SIGTERM loses the positions of one flush interval.
 */
export function createWatchPositions(deps: { database: Database; bus: EventBus; now: () => Date }) {
  const { database, bus, now } = deps;
  /** The latest position per viewer and series, as `users.history` keeps one row each. */
  let pending = new Map<string, HistoryRow>();
  let events: BatchedEvent[] = [];
  /** When `history.recorded` last went out per viewer and episode. */
  const published = new Map<string, number>();

  function eventDue(beat: Beat, final: boolean, at: number): boolean {
    const key = `${beat.userId}\u0000${beat.episodeId}`;
    const last = published.get(key);
    if (final) {
      published.delete(key);
      return true;
    }
    if (last !== undefined && at - last < HISTORY_EVENT_EVERY_MS) return false;
    published.set(key, at);
    return true;
  }

  function forgetIdle(at: number) {
    for (const [key, last] of published) if (at - last > WATCHING_FORGOTTEN_MS) published.delete(key);
  }

  /**
   * The write running now, if any. Writes run one after another: a viewer's flush before a read then
   * waits for the interval's flush that took their rows out of the buffer and has not committed yet
   * (without it the read found the buffer empty and the table not yet written: an older position).
   */
  let writing: Promise<void> = Promise.resolve();

  /** Writes what `take` picks from the buffer, once the write before it has ended. */
  function write(take: (userId: string) => boolean): Promise<void> {
    const run = writing.then(() => writeNow(take));
    writing = run.catch(() => undefined);
    return run;
  }

  /** Writes what `take` picks from the buffer; on failure puts it back, unless newer beats came meanwhile. */
  async function writeNow(take: (userId: string) => boolean): Promise<void> {
    const rows = [...pending.values()].filter((row) => take(row.userId));
    const due = events.filter((event) => take(event.userId!));
    if (rows.length === 0 && due.length === 0) return;
    for (const row of rows) pending.delete(`${row.userId}\u0000${row.videoId}`);
    events = events.filter((event) => !take(event.userId!));
    try {
      await database.transaction(async (tx) => {
        await historyRepository.upsertPositions(tx, rows);
        await appendEvents(tx, due);
      });
    } catch (error) {
      const again = new Map(rows.map((row) => [`${row.userId}\u0000${row.videoId}`, row]));
      for (const [key, row] of pending) again.set(key, row);
      pending = again;
      events = [...due, ...events];
      throw error;
    }
    if (due.length > 0) bus.nudge();
  }

  return {
    async record(context: RequestContext, beat: Beat, final: boolean): Promise<void> {
      const at = now();
      pending.set(`${beat.userId}\u0000${beat.videoId}`, { ...beat, updatedAt: at });
      if (eventDue(beat, final, at.getTime())) {
        const data = { videoId: beat.videoId, episodeId: beat.episodeId, episodeNumber: beat.episodeNumber, positionSeconds: beat.positionSeconds };
        events.push({ context, type: 'history.recorded', data, userId: beat.userId, occurredAt: at });
      }
      if (final) await write((userId) => userId === beat.userId);
    },

    /** Writes every position and event held: on the interval (HISTORY_FLUSH_MS) and at shutdown. */
    async flush(): Promise<void> {
      forgetIdle(now().getTime());
      await write(() => true);
    },

    /** Writes one viewer's held positions: before their history is read, or moved to the member a guest signs in as. */
    flushViewer: (userId: string): Promise<void> => write((id) => id === userId),

    /** Positions and events waiting to be written (metrics, tests). */
    waiting: () => ({ positions: pending.size, events: events.length }),
  };
}

export type WatchPositions = ReturnType<typeof createWatchPositions>;
