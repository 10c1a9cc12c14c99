import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, Partitioners, type Consumer, type KafkaMessage, type logCreator, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { defaultDeliveryPolicy, oneAtATime, type BatchEventHandler, type BusHealth, type DeliveryPolicy, type EventBus, type EventHandler, type Subscription } from './bus.ts';
import { applyOnce, replayRequested, runAfterCommit, setAsideDeadEvent, type AfterCommit } from './delivery.ts';
import type { BusEvent, EventType } from './events.ts';
import { reconnectDelayMs } from './kafka-batches.ts';
import { createKafkaRelay, OUTBOX_ID_HEADER } from './kafka-relay.ts';
import { createEventTopics, defaultTopicSettings, type TopicSettings } from './kafka-topics.ts';
import { decodeEvent, eventTopics, headerOf, topicOf, typeOf } from './wire.ts';

// kafkajs 2.2.4: a consumer's fetcher loops `while (running) await fetch(node)`, and a stopped
// runner's fetch answers [] at once. Fetchers made by a rebalance while the consumer stops are never
// told to stop, and their loop then spins on promises that are already resolved: the event loop
// never reaches a timer or a socket again, so the process can neither shut down nor time out (seen
// in the Kafka outage test). A stopped runner's fetch fails instead, which ends its fetcher; kafkajs
// handles that failure as any other of a fetch, and the stopped consumer does not retry.
type RunnerFetch = ((this: { running: boolean }, nodeId: number) => Promise<unknown[]>) & { stoppedFails?: true };
const Runner = createRequire(import.meta.url)('kafkajs/src/consumer/runner.js') as { prototype: { fetch: RunnerFetch } };
if (!Runner.prototype.fetch.stoppedFails) {
  const fetchOfRunner = Runner.prototype.fetch;
  const fetch: RunnerFetch = function (nodeId) {
    if (!this.running) return Promise.reject(new Error('kafka consumer stopped'));
    return fetchOfRunner.call(this, nodeId);
  };
  fetch.stoppedFails = true;
  Runner.prototype.fetch = fetch;
}

// A retry waits in slices this long, heartbeating between them, so a long backoff does not make
// the group think this member died and hand its partitions (and the retried event) to another.
const HEARTBEAT_SLICE_MS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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
  /**
   * How long a request to a broker may go unanswered before the client gives it up (kafkajs' 30 s by
   * default): a broker that hangs rather than refusing is found out after this long.
   */
  requestTimeoutMs?: number;
  /** The most bytes (before compression) one produce call carries: 512 KiB, half the broker's default `message.max.bytes`. */
  batchMaxBytes?: number;
  /** gzip (the default) or none. */
  compression?: 'gzip' | 'none';
  /** The relay's wait after failing to reach or send to the broker: from `baseMs` doubling to `maxMs` (0.5 s to 30 s). */
  reconnect?: { baseMs: number; maxMs: number };
  /** Partitions, replication and retention of the topics the relay creates (12, 3, 7 days). */
  topics?: TopicSettings;
}

/**
 * Events reach Kafka through the outbox relay (kafka-relay.ts); each consumer is a Kafka consumer
 * group that retries a failing event in place before setting it aside, so the events behind it
 * wait. A broker that cannot be reached stops nothing else: start-up does not wait for it, the
 * relay tries again and again with a growing, jittered wait while events gather in the outbox, and
 * the bus reports itself degraded (for /readyz) until producer and consumers are connected and the
 * last round went through.
 */
export function createKafkaBus(database: Database, logger: Logger, options: KafkaBusOptions): EventBus {
  const pollMs = options.pollMs ?? 500;
  const delivery = options.delivery ?? defaultDeliveryPolicy;
  const prefix = options.topicPrefix ?? 'cliffhanger';
  const idempotent = options.idempotent ?? true;
  const reconnect = options.reconnect ?? { baseMs: 500, maxMs: 30_000 };
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    requestTimeout: options.requestTimeoutMs,
    logLevel: logLevel.WARN,
    logCreator: kafkaLogTo(logger),
  });
  const subscriptions: Subscription[] = [];
  /** Consumers running, by consumer name; one that crashed for good leaves, to be started again. */
  const consumers = new Map<string, Consumer>();
  let producer: Producer | null = null;
  let health: BusHealth = 'degraded';
  let running = false;
  let stopping = new AbortController();
  let relayLoop: Promise<void> | null = null;
  /** Ends the relay's wait: on stop, or on a commit unless the wait is for the broker to come back. */
  let endWait: (() => void) | null = null;
  let waitingForBroker = false;
  const relay = createKafkaRelay(database, logger, () => producer!, {
    prefix,
    maxBytes: options.batchMaxBytes ?? 512 * 1024,
    compression: options.compression ?? 'gzip',
  });

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
        // A transaction run again (a deadlock's victim) keeps only what its last run left to do.
        await database.transaction((tx) => {
          committed.length = 0;
          return applyOnce(tx, consumer, event, handler, committed);
        });
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
    try {
      await kafkaConsumer.connect();
      await kafkaConsumer.subscribe({ topics: [...new Set(subscription.types.map((type) => topicOf(type, prefix)))], fromBeginning: true });
      await kafkaConsumer.run({ eachMessage: ({ message, heartbeat }) => receive(subscription, message, heartbeat) });
    } catch (error) {
      await kafkaConsumer.disconnect().catch(() => {});
      throw error;
    }
    consumers.set(subscription.consumer, kafkaConsumer);
    // kafkajs restarts a consumer itself after errors it deems passing; after any other it stays
    // down, so the relay's loop starts it again.
    kafkaConsumer.on(kafkaConsumer.events.CRASH, ({ payload }) => {
      if (payload.restart || consumers.get(subscription.consumer) !== kafkaConsumer) return;
      logger.error({ consumer: subscription.consumer, err: payload.error }, 'kafka consumer stopped; starting it again');
      consumers.delete(subscription.consumer);
      void kafkaConsumer.disconnect().catch(() => {});
    });
  }

  /** Brings up what is not up yet: the topics and producer first, then each consumer. Throws while the broker cannot be reached. */
  async function connect(): Promise<void> {
    if (!producer) {
      await createEventTopics(kafka, eventTopics(prefix), options.topics ?? defaultTopicSettings, logger);
      // The Java client's murmur2 partitioner: a user's key lands on the same partition from any client.
      // Few retries of its own: the relay's loop waits out an outage, with its jitter, in its place.
      const connecting = kafka.producer({
        allowAutoTopicCreation: true,
        idempotent,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
        retry: { retries: 3, initialRetryTime: 250 },
      });
      try {
        await connecting.connect();
      } catch (error) {
        await connecting.disconnect().catch(() => {});
        throw error;
      }
      producer = connecting;
    }
    for (const subscription of subscriptions) if (running && !consumers.has(subscription.consumer)) await startConsumer(subscription);
  }

  /** One turn of the relay: connect what is down, publish what waits. Answers whether more waits. */
  async function relayTurn(): Promise<boolean> {
    try {
      await connect();
      return await relay.publishCommittedEvents();
    } catch (error) {
      // A producer that failed may hold dead connections: the next turn makes a new one.
      const failed = producer;
      producer = null;
      await failed?.disconnect().catch(() => {});
      throw error;
    }
  }

  async function runRelay(): Promise<void> {
    let failures = 0;
    while (running) {
      let wait = pollMs;
      try {
        if (await relayTurn()) wait = 0;
        if (failures > 0) logger.info({ failures }, 'kafka: broker reached again; the outbox drains');
        failures = 0;
        waitingForBroker = false;
        health = consumers.size === subscriptions.length ? 'up' : 'degraded';
      } catch (error) {
        if (!running) return;
        failures += 1;
        health = 'degraded';
        waitingForBroker = true;
        wait = reconnectDelayMs(failures, reconnect);
        logger.error({ err: error, failures, retryInMs: wait }, 'kafka relay: broker unreachable or send failed; events wait in the outbox');
      }
      try {
        await relay.republishRequested();
        for (const { consumer, handler } of subscriptions) await replayRequested(database, consumer, handler, logger);
      } catch (error) {
        if (running) logger.error({ err: error }, 'replaying dead events failed; retrying');
      }
      if (wait > 0 && running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          endWait = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        endWait = null;
      }
    }
  }

  return {
    kind: 'kafka',
    subscribe(consumer: string, types: readonly EventType[], handler: EventHandler) {
      if (running) throw new Error('subscribe before the bus starts');
      subscriptions.push({ consumer, types, handler });
    },
    // A message is received and applied in its own transaction: a batch handler gets one event at a time.
    subscribeBatch(consumer: string, types: readonly EventType[], batch: BatchEventHandler) {
      if (running) throw new Error('subscribe before the bus starts');
      subscriptions.push({ consumer, types, handler: oneAtATime(batch) });
    },
    nudge() {
      if (!waitingForBroker) endWait?.();
    },
    health: () => health,
    async start() {
      running = true;
      stopping = new AbortController();
      health = 'degraded';
      if (!idempotent) logger.warn('kafka: idempotent producer off; a retried send may be written twice (consumers drop it by event id)');
      // Not awaited: a process starts and serves while the broker is away; its events wait in the outbox.
      relayLoop = runRelay();
    },
    async stop() {
      running = false;
      stopping.abort();
      endWait?.();
      await relayLoop;
      const started = [...consumers.values()];
      consumers.clear();
      await Promise.all(started.map((consumer) => consumer.disconnect()));
      await producer?.disconnect();
      producer = null;
      health = 'degraded';
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
