import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Database, Executor, RawSession } from './database.ts';

/** A real PostgreSQL server through a node-postgres pool. */
export async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = drizzle({ client: pool }) as unknown as Executor;
  return {
    kind: 'postgres',
    db,
    transaction: (fn) => db.transaction((tx) => fn(tx as unknown as Executor)),
    async rawTransaction(fn) {
      const client = await pool.connect();
      const session: RawSession = {
        query: async (text, params) => (await client.query(text, params)).rows,
        exec: async (script) => void (await client.query(script)),
      };
      try {
        await client.query('begin');
        const result = await fn(session);
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async listen(channel, onNotify) {
      const client = await pool.connect();
      const handler = (message: pg.Notification) => {
        if (message.channel === channel) onNotify();
      };
      client.on('notification', handler);
      await client.query(`listen "${channel.replace(/"/g, '')}"`);
      return async () => {
        client.off('notification', handler);
        await client.query(`unlisten "${channel.replace(/"/g, '')}"`).catch(() => {});
        client.release();
      };
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      await pool.end();
    },
  };
}
