import path from 'node:path';
import { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.ts';
import { migrate, openDatabase, type Database } from './db/index.ts';
import { createEventBus, type EventBus } from './bus/index.ts';
import { createJobQueue, type JobQueue } from './queue/index.ts';
import { createDiskStorage, type MediaStorage } from './storage/index.ts';
import { createFileMailer, createSmtpMailer, type Mailer } from './mail/mailer.ts';
import { createLogger, type Logger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics.ts';

/** Everything at the edges a service may use, chosen once from config. */
export interface Platform {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  database: Database;
  bus: EventBus;
  queue: JobQueue;
  storage: MediaStorage;
  mailer: Mailer;
  /** A shared Redis connection when REDIS_URL is set (state every process must agree on: rate limits). */
  redis: Redis | null;
}

export const platformMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

export interface PlatformOverrides {
  database?: Database;
  logger?: Logger;
  bus?: EventBus;
  queue?: JobQueue;
}

/** Opens the adapters config asks for and applies the platform's own migrations. */
export async function createPlatform(config: Config, overrides: PlatformOverrides = {}): Promise<Platform> {
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL, `cliffhanger-${config.TARGET}`);
  const database = overrides.database ?? (await openDatabase(config));
  await migrate(database, 'platform', platformMigrations);
  return {
    config,
    logger,
    metrics: createMetrics(config.TARGET),
    database,
    bus: overrides.bus ?? createEventBus(config, database, logger),
    queue: overrides.queue ?? createJobQueue(config, database, logger),
    storage: createDiskStorage(path.join(config.dataDir, 'media')),
    redis: config.REDIS_URL ? new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 }) : null,
    mailer: config.SMTP_URL ? createSmtpMailer(config.SMTP_URL, config.MAIL_FROM) : createFileMailer(path.join(config.dataDir, 'mail'), logger),
  };
}

/** Starts delivery of events and jobs, once every service has subscribed and registered workers. */
export async function startPlatform(platform: Platform): Promise<void> {
  await platform.bus.start();
  await platform.queue.start();
}

export async function stopPlatform(platform: Platform): Promise<void> {
  await platform.queue.stop();
  await platform.bus.stop();
  await platform.database.close();
  platform.redis?.disconnect();
}
