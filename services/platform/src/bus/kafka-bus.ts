import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { Kafka, logLevel, Partitioners, type Consumer, type KafkaMessage, type logCreator, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { queryRows, type Database } from '../db/database.ts';
import { defaultDeliveryPolicy, type DeliveryPolicy, type EventBus, type EventHandler, type Subscription } from './bus.ts';
import { applyOnce, replayRequested, runAfterCommit, setAsideDeadEvent, type AfterCommit } from './delivery.ts';
import { eventsFromRow, outboxColumns, type BusEvent, type EventType, type OutboxRow } from './events.ts';
import { decodeEvent, encodeEvent, headerOf, topicOf, typeOf, type WireMessage } from './wire.ts';

const RELAY_LOCK = 72_617_004;
const BATCH = 200;
// A retry waits in slices this long, heartbeating between them, so a long backoff does not make
// the group think this member died and hand its partitions (and the retried event) to another.
const HEARTBEAT_SLICE_MS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** On an event that travelled in a batch row: that row's event id, where a dead letter finds it again. */
const OUTBOX_ID_HEADER = 'cliffhanger-outbox-id';
const outboxIdOf = (message: KafkaMessage) => {
  const id = headerOf(message.headers, OUTBOX_ID_HEADER);
  return id && UUID.test(id) ? id : undefined;
};

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  pollMs?: number;
  delivery?: DeliveryPolicy;
  /**
   * Topics are `<topicPrefix>.<family>` and consumer groups `<topicPrefix>.<consumer>`: one prefix
   * per deployment sharing a cluster (the tests take one per database). `cliffhanger` by default.
   */
  topicPrefix?: string;
  /**
   * The idempotent producer (the default): a send the client retries is written once. Only
   * brokers without it turn it off (librdkafka's mock cluster in the tests); consumers still drop
   * a duplicate by event id.
   */
  idempotent?: boolean;
  /**
   * How long a consumer's fetch may wait at the broker for new events (kafkajs' 5 s by default). A
   * real broker answers as soon as one arrives; librdkafka's mock cluster only when the wait ends,
   * so the tests shorten it.
   */
  fetchMaxWaitMs?: number;
}

/**
 * The relay publishes committed outbox rows to Kafka in id order, one relay at a time (an advisory
 * lock), and marks them published: at least once, since a crash between send and mark sends them
 * again and consumers drop the duplicate by event id. One user's events of a family share a topic
 * and a key, hence a partition, hence their order. Each consumer is a Kafka consumer group that
 * retries a failing event in place before setting it aside, so the events behind it wait.
 */
export function createKafkaBus(database: Database, logger: Logger, options: KafkaBusOptions): EventBus {
  const pollMs = options.pollMs ?? 500;
  const delivery = options.delivery ?? defaultDeliveryPolicy;
  const prefix = options.topicPrefix ?? 'cliffhanger';
  const idempotent = options.idempotent ?? true;
  const kafka = new Kafka({ clientId: options.clientId, brokers: options.brokers, logLevel: logLevel.WARN, logCreator: kafkaLogTo(logger) });
  const subscriptions: Subscription[] = [];
  const consumers: Consumer[] = [];
  let producer: Producer | null = null;
  let running = false;
  let stopping = new AbortController();
  let relayLoop: Promise<void> | null = null;
  let wakeRelay: (() => void) | null = null;

  /** Publishes the next committed outbox rows; answers whether more are waiting. */
  async function publishCommittedEvents(): Promise<boolean> {
    return database.transaction(async (tx) => {
      // Two relays would interleave their batches on a partition and break one user's order.
      const [lock] = await queryRows<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${RELAY_LOCK}) as locked`);
      if (!lock?.locked) return false;
      const rows = await queryRows<OutboxRow & { id: string | number }>(
        tx,
        sql`select id, ${outboxColumns} from platform.outbox where published_at is null order by id limit ${BATCH}`,
      );
      if (rows.length === 0) return false;
      const byTopic = new Map<string, WireMessage[]>();
      const sent: typeof rows = [];
      let count = 0;
      for (const row of rows) {
        // Batch rows (the pixel's hits) go out as an event each, keyed by its own user; one send
        // carries about a batch's worth of events, and at least one row.
        if (count >= BATCH * 5) break;
        const events = eventsFromRow(row);
        const topic = topicOf(row.type as EventType, prefix);
        const messages = byTopic.get(topic) ?? [];
        for (const event of events) {
          const message = encodeEvent(event);
          if (event.id !== row.event_id) message.headers[OUTBOX_ID_HEADER] = row.event_id;
          messages.push(message);
        }
        byTopic.set(topic, messages);
        sent.push(row);
        count += events.length;
      }
      await producer!.sendBatch({ topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })), acks: -1 });
      const ids = sent.map((row) => Number(row.id));
      await tx.execute(sql`update platform.outbox set published_at = now() where id in (${sql.join(ids, sql`, `)})`);
      return sent.length < rows.length || rows.length === BATCH;
    });
  }

  async function receive({ consumer, types, handler }: Subscription, message: KafkaMessage, heartbeat: () => Promise<void>): Promise<void> {
    const type = typeOf(message.headers);
    if (!type || !types.includes(type)) return; // another type of the family, or one only newer code knows
    let event: BusEvent;
    try {
      event = decodeEvent(message.value, message.headers);
    } catch (error) {
      // Bytes that do not decode never will; the outbox row can still be replayed once code is fixed.
      const eventId = headerOf(message.headers, 'ce-id');
      logger.error({ consumer, eventId, type, err: error }, 'unreadable event set aside');
      if (eventId && UUID.test(eventId)) await database.transaction((tx) => setAsideDeadEvent(tx, consumer, eventId, error, 1, outboxIdOf(message)));
      return;
    }
    for (let failures = 1; ; failures++) {
      try {
        const committed: AfterCommit[] = [];
        await database.transaction((tx) => applyOnce(tx, consumer, event, handler, committed));
        await runAfterCommit(committed, logger, consumer);
        return;
      } catch (error) {
        logger.warn({ consumer, eventId: event.id, type, failures, err: error }, 'event handler failed');
        if (failures >= delivery.maxAttempts) {
          await database.transaction((tx) => setAsideDeadEvent(tx, consumer, event.id, error, failures, outboxIdOf(message)));
          logger.error({ consumer, eventId: event.id, type }, 'event set aside after repeated failures');
          return;
        }
        await waitBeating(delivery.backoffMs(failures), heartbeat);
      }
    }
  }

  /** Waits `ms` while heartbeating; on stop it throws, so the offset stays uncommitted and the event comes again. */
  async function waitBeating(ms: number, heartbeat: () => Promise<void>): Promise<void> {
    const until = Date.now() + ms;
    while (running && Date.now() < until) {
      await sleep(Math.min(HEARTBEAT_SLICE_MS, until - Date.now()), undefined, { signal: stopping.signal }).catch(() => {});
      if (running) await heartbeat();
    }
    if (!running) throw new Error('the bus stopped while an event waited for its retry');
  }

  async function startConsumer(subscription: Subscription): Promise<void> {
    // A group per prefix too: one group across two prefixes would hand one deployment's partitions to the other.
    const kafkaConsumer = kafka.consumer({ groupId: `${prefix}.${subscription.consumer}`, maxWaitTimeInMs: options.fetchMaxWaitMs });
    consumers.push(kafkaConsumer);
    await kafkaConsumer.connect();
    await kafkaConsumer.subscribe({ topics: [...new Set(subscription.types.map((type) => topicOf(type, prefix)))], fromBeginning: true });
    await kafkaConsumer.run({ eachMessage: ({ message, heartbeat }) => receive(subscription, message, heartbeat) });
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
      stopping = new AbortController();
      if (!idempotent) logger.warn('kafka: idempotent producer off; a retried send may be written twice (consumers drop it by event id)');
      // The Java client's murmur2 partitioner: a user's key lands on the same partition from any client.
      producer = kafka.producer({ allowAutoTopicCreation: true, idempotent, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      for (const subscription of subscriptions) await startConsumer(subscription);
      relayLoop = (async () => {
        while (running) {
          let wait = pollMs;
          try {
            if (await publishCommittedEvents()) wait = 0;
            for (const { consumer, handler } of subscriptions) await replayRequested(database, consumer, handler, logger);
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
      stopping.abort();
      wakeRelay?.();
      await relayLoop;
      await Promise.all(consumers.splice(0).map((c) => c.disconnect()));
      await producer?.disconnect();
    },
  };
}

/** kafkajs logs through the process's logger (silent in tests), not its own console lines. */
export function kafkaLogTo(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...fields } = log;
      const method = level === logLevel.ERROR ? 'error' : level === logLevel.WARN ? 'warn' : level === logLevel.INFO ? 'info' : 'debug';
      logger[method]({ kafka: namespace, ...fields }, message);
    };
}
