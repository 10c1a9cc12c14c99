import type { Database } from '@cliffhanger/platform';

/**
 * How long a viewer's coins and VIP are answered from memory. `GET /api/user` asks on every page a
 * viewer opens, and on the embedded defaults two queries there were most of the call's cost
 * (issue 28). A process forgets what it changes itself at once (below); another process's change
 * (a second unlock replica) is seen within this long, as accounts are (ACCOUNT_CACHE_MS in the user service).
 */
export const STANDING_CACHE_MS = 5_000;
const MAX_STANDINGS = 50_000;

interface Kept<T> {
  value: T;
  /** The writes' count when the read began: any write committed since makes the entry void. */
  generation: number;
  /** Real time after which it is read again. */
  expiresAt: number;
  /** The service's clock time at which it stops being true: a bonus lot lapses, a VIP ends. */
  trueUntil: number;
}

/**
 * A read-through cache of one value per user that no write of this process can leave stale. Every
 * transaction of the service (through `database`, which wraps the service's own) and every write
 * named by `changed()` counts as a write once it has committed, and an entry read before that count
 * is void: a read that raced a write is never kept, whoever finished first. Per user would be
 * finer; writes are rare next to reads (a purchase, an unlock), so one count keeps it simple.
 */
export function createStandingCache<T>(now: () => Date) {
  const entries = new Map<string, Kept<T>>();
  let generation = 0;
  const changed = () => {
    generation++;
  };

  return {
    changed,

    /** `database` whose transactions count as writes once they end, committed or not. */
    counting(database: Database): Database {
      return Object.assign(Object.create(database) as Database, {
        async transaction<R>(fn: Parameters<Database['transaction']>[0]): Promise<R> {
          try {
            return (await database.transaction(fn)) as R;
          } finally {
            changed();
          }
        },
      });
    },

    /** The user's value: kept, or read by `read`, which also says until when (service clock, ms) it holds. */
    async get(userId: string, read: () => Promise<{ value: T; trueUntil: number }>): Promise<T> {
      const kept = entries.get(userId);
      if (kept && kept.generation === generation && kept.expiresAt > Date.now() && kept.trueUntil > now().getTime()) return kept.value;
      const startedAt = generation;
      const { value, trueUntil } = await read();
      entries.delete(userId);
      // Maps iterate in insertion order, so the first key is the oldest.
      if (entries.size >= MAX_STANDINGS) entries.delete(entries.keys().next().value as string);
      entries.set(userId, { value, generation: startedAt, expiresAt: Date.now() + STANDING_CACHE_MS, trueUntil });
      return value;
    },
  };
}
