import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.ts';
import { migrate, openDatabase, type Database } from './db/index.ts';
import { createEventBus, type EventBus } from './bus/index.ts';
import { createJobQueue, type JobQueue } from './queue/index.ts';
import { createMediaStorage, type MediaStorage } from './storage/index.ts';
import { createFileMailer, createSmtpMailer, type Mailer } from './mail/mailer.ts';
import { createLogger, type Logger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { timedQueue, watchPlatform } from './platform-metrics.ts';
import { flushObservability, startObservability, traceTransactions } from './observability/index.ts';
import { startRetention } from './retention.ts';

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
  /** Set once shutdown starts: /readyz answers 503 from then on, so load balancers stop sending work. */
  lifecycle: { stopping: boolean };
}

export const platformMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

export interface PlatformOverrides {
  database?: Database;
  logger?: Logger;
  bus?: EventBus;
  queue?: JobQueue;
  mailer?: Mailer;
}

/** Opens the adapters config asks for and applies the platform's own migrations. */
export async function createPlatform(config: Config, overrides: PlatformOverrides = {}): Promise<Platform> {
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL, `cliffhanger-${config.TARGET}`);
  startObservability(config, logger);
  keepPrivate(config.dataDir, logger);
  const database = overrides.database ?? (await openDatabase(config));
  await migrate(database, 'platform', platformMigrations);
  const metrics = createMetrics(config.TARGET);
  const platform: Platform = {
    config,
    logger,
    metrics,
    // A service's transaction is a span of the request or consumer that opened it.
    database: traceTransactions(database),
    bus: overrides.bus ?? createEventBus(config, database, logger),
    queue: timedQueue(overrides.queue ?? createJobQueue(config, database, logger), metrics),
    storage: createMediaStorage(config),
    redis: config.REDIS_URL ? new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 }) : null,
    mailer: overrides.mailer ?? (config.SMTP_URL ? createSmtpMailer(config.SMTP_URL, config.MAIL_FROM) : createFileMailer(path.join(config.dataDir, 'mail'), logger)),
    lifecycle: { stopping: false },
  };
  watchPlatform(platform);
  return platform;
}

/**
 * DATA_DIR holds the database files, mail with reset links and generated secrets: only this user may
 * enter it, whatever modes the files inside get (PGlite writes 0666).
 */
function keepPrivate(dataDir: string, logger: Logger): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    if ((fs.statSync(dataDir).mode & 0o077) !== 0) fs.chmodSync(dataDir, 0o700);
  } catch (error) {
    logger.warn({ err: error, dataDir }, 'DATA_DIR is open to other users and cannot be closed (not its owner?)');
  }
}

const retentionOf = new WeakMap<Platform, { stop(): Promise<void> }>();

/** Starts delivery of events and jobs, once every service has subscribed and registered workers, and retention. */
export async function startPlatform(platform: Platform): Promise<void> {
  await platform.bus.start();
  await platform.queue.start();
  retentionOf.set(platform, startRetention(platform.database, platform.config, platform.logger));
}

export async function stopPlatform(platform: Platform): Promise<void> {
  await retentionOf.get(platform)?.stop();
  await platform.queue.stop();
  await platform.bus.stop();
  await platform.database.close();
  platform.redis?.disconnect();
  await flushObservability();
}
