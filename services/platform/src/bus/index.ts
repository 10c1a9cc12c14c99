import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { EventBus } from './bus.ts';
import { createKafkaBus } from './kafka-bus.ts';
import { createPostgresBus } from './postgres-bus.ts';

export * from './bus.ts';
export * from './events.ts';
export { createKafkaBus, type KafkaBusOptions } from './kafka-bus.ts';
export { CONTENT_TYPE, decodeEvent, encodeEvent, eventTopics, familyOf, topicOf, type WireMessage } from './wire.ts';
export { tailKafkaEvents, tailOutboxEvents, type TailOptions } from './tail.ts';
export { createPostgresBus } from './postgres-bus.ts';
export { appendEdgeBatch, takeEdgeBatch, type EdgeBatch } from './edge-batches.ts';

/** Kafka when KAFKA_BROKERS is set, otherwise the outbox itself is the log. */
export function createEventBus(config: Pick<Config, 'KAFKA_BROKERS' | 'KAFKA_CLIENT_ID'>, database: Database, logger: Logger): EventBus {
  return config.KAFKA_BROKERS
    ? createKafkaBus(database, logger, { brokers: config.KAFKA_BROKERS.split(','), clientId: config.KAFKA_CLIENT_ID })
    : createPostgresBus(database, logger);
}
export { listDeadEvents, requestReplay, type DeadEvent } from './dead-events.ts';
