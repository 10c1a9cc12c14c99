import { sql } from 'drizzle-orm';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { queryRows, type Database } from '../db/database.ts';
import { MAX_DELIVERY_ATTEMPTS, type EventBus, type EventHandler, type Subscription } from './bus.ts';
import { applyOnce, setAsideDeadEvent } from './delivery.ts';
import { eventFromRow, type BusEvent, type EventType, type OutboxRow } from './events.ts';

const BATCH = 200;

/** Kafka topic of an event type: analysts subscribe to these. */
export const topicOf = (type: EventType) => `cliffhanger.${type}`;

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  pollMs?: number;
}

/**
 * The relay moves committed outbox rows to Kafka (at least once; a crash between send and mark
 * resends, and consumers drop the duplicate by event id). Each consumer is a Kafka consumer group.
 */
export function createKafkaBus(database: Database, logger: Logger, options: KafkaBusOptions): EventBus {
  const pollMs = options.pollMs ?? 500;
  const kafka = new Kafka({ clientId: options.clientId, brokers: options.brokers, logLevel: logLevel.WARN });
  const subscriptions: Subscription[] = [];
  const consumers: Consumer[] = [];
  let producer: Producer | null = null;
  let running = false;
  let relayLoop: Promise<void> | null = null;
  let wakeRelay: (() => void) | null = null;

  async function publishCommittedEvents(): Promise<number> {
    return database.transaction(async (tx) => {
      const rows = await queryRows<OutboxRow & { id: string | number }>(
        tx,
        sql`select id, event_id, type, occurred_at, user_id, attribution, data, seq from platform.outbox
            where published_at is null order by id limit ${BATCH} for update skip locked`,
      );
      if (rows.length === 0) return 0;
      const byTopic = new Map<string, { key: string; value: string }[]>();
      for (const row of rows) {
        const event = eventFromRow(row);
        const messages = byTopic.get(topicOf(event.type)) ?? [];
        messages.push({ key: event.userId ?? event.id, value: JSON.stringify(event) });
        byTopic.set(topicOf(event.type), messages);
      }
      await producer!.sendBatch({ topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })), acks: -1 });
      const ids = rows.map((row) => Number(row.id));
      await tx.execute(sql`update platform.outbox set published_at = now() where id in (${sql.join(ids, sql`, `)})`);
      return rows.length;
    });
  }

  async function startConsumer({ consumer, types, handler }: Subscription): Promise<void> {
    const kafkaConsumer = kafka.consumer({ groupId: consumer });
    await kafkaConsumer.connect();
    await kafkaConsumer.subscribe({ topics: types.map(topicOf), fromBeginning: true });
    const attempts = new Map<string, number>();
    await kafkaConsumer.run({
      eachMessage: async ({ message }) => {
        const event = JSON.parse(message.value!.toString()) as BusEvent;
        try {
          await database.transaction((tx) => applyOnce(tx, consumer, event, handler));
          attempts.delete(event.id);
        } catch (error) {
          const failures = (attempts.get(event.id) ?? 0) + 1;
          attempts.set(event.id, failures);
          logger.warn({ consumer, eventId: event.id, failures, err: error }, 'event handler failed');
          if (failures < MAX_DELIVERY_ATTEMPTS) throw error; // kafkajs retries the same offset
          await database.transaction((tx) => setAsideDeadEvent(tx, consumer, event.id, error));
          attempts.delete(event.id);
        }
      },
    });
    consumers.push(kafkaConsumer);
  }

  return {
    kind: 'kafka',
    subscribe(consumer: string, types: readonly EventType[], handler: EventHandler) {
      if (running) throw new Error('subscribe before the bus starts');
      subscriptions.push({ consumer, types, handler });
    },
    nudge() {
      wakeRelay?.();
    },
    async ping() {
      const admin = kafka.admin();
      await admin.connect();
      try {
        await admin.describeCluster();
      } finally {
        await admin.disconnect();
      }
    },
    async start() {
      running = true;
      producer = kafka.producer({ allowAutoTopicCreation: true, idempotent: true });
      await producer.connect();
      for (const subscription of subscriptions) await startConsumer(subscription);
      relayLoop = (async () => {
        while (running) {
          let wait = pollMs;
          try {
            if ((await publishCommittedEvents()) === BATCH) wait = 0;
          } catch (error) {
            if (running) logger.error({ err: error }, 'kafka relay failed; retrying');
          }
          if (wait > 0 && running) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, wait);
              wakeRelay = () => {
                clearTimeout(timer);
                resolve();
              };
            });
          }
        }
      })();
    },
    async stop() {
      running = false;
      wakeRelay?.();
      await relayLoop;
      await Promise.all(consumers.splice(0).map((c) => c.disconnect()));
      await producer?.disconnect();
    },
  };
}
