import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createBullmqQueue } from './bullmq-queue.ts';
import { createDatabaseQueue } from './database-queue.ts';
import type { JobQueue } from './queue.ts';

export * from './queue.ts';
export { createBullmqQueue, createDatabaseQueue };

/** BullMQ when REDIS_URL is set, otherwise jobs live in the database. */
export function createJobQueue(config: Pick<Config, 'REDIS_URL' | 'REDIS_PREFIX'>, database: Database, logger: Logger): JobQueue {
  return config.REDIS_URL ? createBullmqQueue(logger, { redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX }) : createDatabaseQueue(database, logger);
}
