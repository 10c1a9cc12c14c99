import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

/** A Drizzle handle: the database itself or a transaction inside it. */
export type Executor = PgDatabase<PgQueryResultHKT, Record<string, never>>;

/** Raw SQL inside one transaction, for what Drizzle does not model: migrations and locks. */
export interface RawSession {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Runs a script of several statements with no parameters. */
  exec(script: string): Promise<void>;
}

/**
 * The database port. PGlite (embedded, in this process) and node-postgres (a real server)
 * both implement it; domain code sees only Drizzle.
 */
export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Executor;
  /** A real server's address, for a worker thread that opens connections of its own to the same database. */
  readonly connectionString?: string;
  transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  rawTransaction<T>(fn: (session: RawSession) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` on NOTIFY of `channel` with its payload, or with null when notices may have been
   * lost (the connection was re-established); resolves to an unsubscribe function.
   */
  listen(channel: string, onNotify: (payload: string | null) => void): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Runs raw SQL through Drizzle and answers its rows (both drivers answer `{ rows }`). */
export async function queryRows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
