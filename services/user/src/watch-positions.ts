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
  /** Per viewer: the latest position per series, as `users.history` keeps one row each, and the events due. */
  let pending = new Map<string, { rows: Map<string, HistoryRow>; events: BatchedEvent[] }>();
  const heldFor = (userId: string) => {
    let held = pending.get(userId);
    if (!held) pending.set(userId, (held = { rows: new Map(), events: [] }));
    return held;
  };
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
  /**
   * The next write, while it waits for the one running: who it writes (null: everyone). Every flush
   * asked meanwhile joins it, so viewers leaving at once under load share one transaction (a group
   * commit) instead of one each.
   */
  let next: { viewers: Set<string> | null; run: Promise<void> } | null = null;

  /** Writes what the buffer holds of one viewer (`userId`) or of all (null), once the write before it has ended. */
  function write(userId: string | null): Promise<void> {
    if (!next) {
      const group = { viewers: new Set<string>() as Set<string> | null };
      const run = writing.then(() => {
        next = null;
        return writeNow(group.viewers);
      });
      writing = run.catch(() => undefined);
      next = Object.assign(group, { run });
    }
    if (userId === null) next.viewers = null;
    else next.viewers?.add(userId);
    return next.run;
  }

  /** Writes what the buffer holds of `viewers` (null: everyone); on failure puts it back, unless newer beats came meanwhile. */
  async function writeNow(viewers: Set<string> | null): Promise<void> {
    let taken = pending;
    if (viewers === null) pending = new Map();
    else {
      taken = new Map();
      for (const userId of viewers) {
        const held = pending.get(userId);
        if (!held) continue;
        taken.set(userId, held);
        pending.delete(userId);
      }
    }
    if (taken.size === 0) return;
    const rows = [...taken.values()].flatMap((held) => [...held.rows.values()]);
    const due = [...taken.values()].flatMap((held) => held.events);
    try {
      await database.transaction(async (tx) => {
        await historyRepository.upsertPositions(tx, rows);
        await appendEvents(tx, due);
      });
    } catch (error) {
      for (const [viewer, held] of taken) {
        const newer = pending.get(viewer);
        for (const [videoId, row] of newer?.rows ?? []) held.rows.set(videoId, row);
        held.events.push(...(newer?.events ?? []));
        pending.set(viewer, held);
      }
      throw error;
    }
    if (due.length > 0) bus.nudge();
  }

  return {
    async record(context: RequestContext, beat: Beat, final: boolean): Promise<void> {
      const at = now();
      const held = heldFor(beat.userId);
      held.rows.set(beat.videoId, { ...beat, updatedAt: at });
      if (eventDue(beat, final, at.getTime())) {
        const data = { videoId: beat.videoId, episodeId: beat.episodeId, episodeNumber: beat.episodeNumber, positionSeconds: beat.positionSeconds };
        held.events.push({ context, type: 'history.recorded', data, userId: beat.userId, occurredAt: at });
      }
      if (final) await write(beat.userId);
    },

    /** Writes every position and event held: on the interval (HISTORY_FLUSH_MS) and at shutdown. */
    async flush(): Promise<void> {
      forgetIdle(now().getTime());
      await write(null);
    },

    /** Writes one viewer's held positions: before their history is read, or moved to the member a guest signs in as. */
    flushViewer: (userId: string): Promise<void> => write(userId),

    /** Positions and events waiting to be written (metrics, tests). */
    waiting: () => {
      const held = [...pending.values()];
      return { positions: held.reduce((sum, { rows }) => sum + rows.size, 0), events: held.reduce((sum, { events }) => sum + events.length, 0) };
    },
  };
}

export type WatchPositions = ReturnType<typeof createWatchPositions>;
