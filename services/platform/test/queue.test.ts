import { randomBytes } from 'node:crypto';
import { createBullmqQueue, createDatabaseQueue, type Database } from '../src/index.ts';
import { realDatabaseUrl, realRedisUrl, silentLogger } from '../src/testing/index.ts';
import { queueContract } from './queue.contract.ts';

queueContract(`database runner on ${realDatabaseUrl ? 'PostgreSQL' : 'PGlite'}`, (database, options) =>
  createDatabaseQueue(database, silentLogger, { pollMs: 20, ...options }),
);

// One Redis key prefix per test, shared by the queues a test opens (as a restarted process would).
const prefixes = new WeakMap<Database, string>();
const prefixOf = (database: Database) => {
  if (!prefixes.has(database)) prefixes.set(database, `test-${randomBytes(4).toString('hex')}`);
  return prefixes.get(database)!;
};

queueContract(
  'BullMQ on Redis',
  (database, options) => createBullmqQueue(silentLogger, { redisUrl: realRedisUrl!, prefix: prefixOf(database), ...options }),
  realRedisUrl ? undefined : 'no TEST_REDIS_URL: BullMQ runs in the real-servers pass of npm test',
);
