import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Database, Executor, RawSession } from './database.ts';

const DEADLOCK_ATTEMPTS = 3;
/** PostgreSQL's deadlock_detected (40P01), as pg throws it or drizzle wraps it (`cause`). */
const isDeadlock = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && ((error as { code?: unknown }).code === '40P01' || isDeadlock((error as { cause?: unknown }).cause));

/** A real PostgreSQL server through a node-postgres pool. */
export async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  // A connection that cannot be had within 10 s is an error to handle, not a wait without end.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 10_000 });
  // A client losing its server (a restart, a failover) must not crash the process: an idle one is
  // replaced by the pool; a busy one fails the query it was running, which its caller handles.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const pooled = drizzle({ client: pool });
  /** The LISTEN connections open now: close() ends them, or the pool would wait for them forever. */
  const listening = new Set<() => void>();
  // drizzle's transaction on a pool sends BEGIN before its try: a BEGIN that fails (on a connection
  // the server dropped while it sat idle in the pool) never gives its client back, and the pool is
  // one connection smaller for good (close() then waits for it forever). Every transaction on the
  // pool (this module's and a repository's `db.transaction`) takes its client here instead, always
  // gives it back, and drops it when the connection is gone.
  const once: typeof pooled.transaction = async (fn, config) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      return await drizzle({ client }).transaction(fn, config);
    } catch (error) {
      await client.query('rollback').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  };
  // A transaction PostgreSQL chose as a deadlock's victim was rolled back whole: it runs again, as
  // PostgreSQL's documentation asks of applications, a few times after a short random wait.
  pooled.transaction = async (fn, config) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(fn, config);
      } catch (error) {
        if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  };
  const db = pooled as unknown as Executor;
  return {
    kind: 'postgres',
    connectionString: url,
    db,
    transaction: (fn) => db.transaction((tx) => fn(tx as unknown as Executor)),
    async rawTransaction(fn) {
      const client = await pool.connect();
      const session: RawSession = {
        query: async (text, params) => (await client.query(text, params)).rows,
        exec: async (script) => void (await client.query(script)),
      };
      let broken: Error | undefined;
      try {
        await client.query('begin');
        const result = await fn(session);
        await client.query('commit');
        return result;
      } catch (error) {
        // A failed rollback means the connection itself is gone: it leaves the pool instead of going back.
        await client.query('rollback').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    /**
     * LISTEN on a connection of its own. When the server goes away (a restart, a failover, a killed
     * backend) the connection's error is caught, not thrown at the process: it reconnects with
     * backoff and calls `onNotify(null)` once, since notifications sent meanwhile were lost.
     */
    async listen(channel, onNotify) {
      const quoted = `"${channel.replace(/"/g, '')}"`;
      let client: pg.PoolClient | null = null;
      let stopped = false;
      let retryTimer: NodeJS.Timeout | undefined;
      const handler = (message: pg.Notification) => {
        if (message.channel === channel) onNotify(message.payload ?? '');
      };
      const connect = async (attempt: number): Promise<void> => {
        let next: pg.PoolClient | null = null;
        try {
          next = await pool.connect();
          next.on('notification', handler);
          const candidate = next;
          next.on('error', () => lost(candidate));
          await next.query(`listen ${quoted}`);
          if (stopped) return void next.release(true);
          client = next;
          if (attempt > 0) onNotify(null);
        } catch {
          // A connection that could not LISTEN (the server was still going away) is dropped, never kept.
          if (next && client !== next) {
            next.off('notification', handler);
            next.release(true);
          }
          if (!stopped) retryTimer = setTimeout(() => void connect(attempt + 1), Math.min(30_000, 250 * 2 ** attempt)).unref();
        }
      };
      const lost = (gone: pg.PoolClient) => {
        if (client !== gone) return;
        client = null;
        gone.off('notification', handler);
        gone.release(true);
        if (!stopped) void connect(1);
      };
      await connect(0);
      if (!client) throw new Error(`could not LISTEN on ${channel}`);
      /** Stops listening and hands the connection back; answers it, or null when there was none. */
      const stop = (): pg.PoolClient | null => {
        listening.delete(drop);
        stopped = true;
        clearTimeout(retryTimer);
        const last: pg.PoolClient | null = client;
        client = null;
        last?.off('notification', handler);
        return last;
      };
      // Closing the database ends the LISTEN with its connection (pool.end() waits for every client).
      const drop = () => stop()?.release(true);
      listening.add(drop);
      return async () => {
        const last = stop();
        if (!last) return;
        await last.query(`unlisten ${quoted}`).catch(() => {});
        last.release();
      };
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      for (const drop of listening) drop();
      listening.clear();
      await pool.end();
    },
  };
}
