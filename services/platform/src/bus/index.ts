import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { EventBus } from './bus.ts';
import { createPostgresBus } from './postgres-bus.ts';

export * from './bus.ts';
export * from './events.ts';
import { createKafkaBus, type KafkaBusOptions } from './kafka-bus.ts';
export { createKafkaBus, type KafkaBusOptions } from './kafka-bus.ts';
export { RELAY_CONSUMER } from './kafka-relay.ts';
export { CONTENT_TYPE, decodeEvent, encodeEvent, eventTopics, familyOf, topicOf, type WireMessage } from './wire.ts';
export { tailKafkaEvents, tailOutboxEvents, type TailOptions } from './tail.ts';
export { createPostgresBus } from './postgres-bus.ts';
export { appendEdgeBatch, takeEdgeBatch, type EdgeBatch } from './edge-batches.ts';

type BusConfig = Pick<
  Config,
  | 'KAFKA_BROKERS'
  | 'KAFKA_CLIENT_ID'
  | 'KAFKA_BATCH_MAX_BYTES'
  | 'KAFKA_COMPRESSION'
  | 'KAFKA_RECONNECT_MAX_MS'
  | 'KAFKA_TOPIC_PARTITIONS'
  | 'KAFKA_TOPIC_REPLICATION'
  | 'KAFKA_TOPIC_RETENTION_HOURS'
>;

/**
 * On the embedded database a consumer with nothing to read looks again after this long (on a server,
 * every half second): the relay in this one process wakes it for every event it reads, and each look is
 * a transaction on the thread that answers requests (ten consumers looking twice a second took a
 * tenth of a cached read's time). What no wake announces, an operator's replay, waits this long.
 */
export const EMBEDDED_IDLE_MS = 5_000;
/** On the embedded database a consumer's transaction reads this many events (on a server, 100): requests get the database between them. */
export const EMBEDDED_BATCH = 10;

/** Kafka when KAFKA_BROKERS is set, otherwise the outbox itself is the log. */
export function createEventBus(config: BusConfig, database: Database, logger: Logger): EventBus {
  if (config.KAFKA_BROKERS) return createKafkaBus(database, logger, kafkaBusOptions(config, config.KAFKA_BROKERS));
  return createPostgresBus(database, logger, database.kind === 'pglite' ? { idleMs: EMBEDDED_IDLE_MS, batch: EMBEDDED_BATCH } : {});
}

/** The Kafka bus's settings from config. */
export function kafkaBusOptions(config: BusConfig, brokers: string): KafkaBusOptions {
  return {
    brokers: brokers.split(','),
    clientId: config.KAFKA_CLIENT_ID,
    batchMaxBytes: config.KAFKA_BATCH_MAX_BYTES,
    compression: config.KAFKA_COMPRESSION,
    reconnect: { baseMs: 500, maxMs: config.KAFKA_RECONNECT_MAX_MS },
    topics: { partitions: config.KAFKA_TOPIC_PARTITIONS, replication: config.KAFKA_TOPIC_REPLICATION, retentionHours: config.KAFKA_TOPIC_RETENTION_HOURS },
  };
}
export { listDeadEvents, requestReplay, type DeadEvent } from './dead-events.ts';
