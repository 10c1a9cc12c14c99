// The Kafka relay's cutting and setting aside, on PGlite, with a producer that records what kafkajs
// would be handed and answers as kafkajs does (its own error classes); the broker-side behaviour
// runs on librdkafka's mock cluster in kafka.test.ts and kafka-outage.test.ts.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { CompressionTypes, KafkaJSConnectionError, KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, type Producer } from 'kafkajs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appendEvent, appendEventBatch, decodeEvent, queryRows, RELAY_CONSUMER, type Database, type RequestContext } from '../src/index.ts';
import { reconnectDelayMs } from '../src/bus/kafka-batches.ts';
import { createKafkaRelay } from '../src/bus/kafka-relay.ts';
import { openMigratedDatabase, silentLogger } from '../src/testing/index.ts';

interface SentBatch {
  topicMessages: { topic: string; messages: { key: string; value: Buffer; headers: Record<string, string> }[] }[];
  compression?: CompressionTypes;
}

/** kafkajs's producer as far as the relay uses it: records each produce call, or fails it as `refuse` says. */
function recordingProducer(refuse: (batch: SentBatch) => Error | null = () => null) {
  const sent: SentBatch[] = [];
  const producer = {
    async sendBatch(batch: SentBatch) {
      const error = refuse(batch);
      if (error) throw error;
      sent.push(batch);
      return [];
    },
  } as unknown as Producer;
  return { producer, sent };
}

/** What a produce call weighs on the wire before compression, counted apart from the relay's own estimate. */
const callBytes = (batch: SentBatch) =>
  batch.topicMessages
    .flatMap(({ messages }) => messages)
    .reduce((sum, { key, value, headers }) => sum + key.length + value.length + Object.entries(headers).reduce((h, [n, v]) => h + n.length + v.length, 0), 0);
const idsOf = (batch: SentBatch) => batch.topicMessages.flatMap(({ messages }) => messages.map((message) => message.headers['ce-id']!));

/** A refusal as kafkajs throws it once the broker answered MESSAGE_TOO_LARGE for a record. */
const tooLarge = () => {
  const refused = new KafkaJSProtocolError({ message: 'The request included a message larger than the max message size the server will accept', type: 'MESSAGE_TOO_LARGE', code: 10, retriable: false } as never);
  return Object.assign(new KafkaJSNonRetriableError(refused), { cause: refused });
};

const context: RequestContext = { requestId: 'r-relay', userId: 'u1', attribution: { referrerToken: null, fbclid: null, ttclid: null } };
const BOUND = 512 * 1024;

/** A pixel batch as the analytics module writes one: 2,000 hits of a busy minute, each with its browser and campaign. */
function pixelBatch(hits: number) {
  return Array.from({ length: hits }, (_, n) => ({
    userId: `guest-${n % 400}-${randomUUID()}`,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
    attribution: { referrerToken: `ref-${n % 7}`, fbclid: `IwAR${'f'.repeat(60)}${n}`, ttclid: null },
    traceparent: `00-${randomUUID().replaceAll('-', '')}-${'b7'.repeat(8)}-01`,
    data: {
      event: 'episode_view',
      videoId: `v-${n % 50}`,
      episodeId: `e-${n % 900}`,
      path: `/video/v-${n % 50}/episode/${n % 60}?utm_source=facebook&utm_campaign=winter-drop`,
      params: { utm_source: 'facebook', utm_medium: 'paid', utm_campaign: 'winter-drop', screen: '390x844', lang: 'en' },
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      ipHash: 'a3f'.repeat(21),
    },
  }));
}

describe('the Kafka relay', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openMigratedDatabase();
  });
  afterAll(() => database?.close());
  beforeEach(async () => {
    await database.db.execute(sql`delete from platform.outbox`);
    await database.db.execute(sql`delete from platform.dead_events`);
  });
  const unpublished = async () => (await queryRows(database.db, sql`select 1 from platform.outbox where published_at is null`)).length;
  const deadEvents = () => queryRows<{ consumer: string; event_id: string; error: string; outbox_event_id: string | null }>(database.db, sql`select consumer, event_id, error, outbox_event_id from platform.dead_events`);
  const drain = async (relay: ReturnType<typeof createKafkaRelay>) => {
    for (let round = 0; round < 50 && (await relay.publishCommittedEvents()); round++);
  };

  it('sends a 2,000-hit pixel batch over 1 MB as several gzip produce calls, each under the bound, every hit once and in order', async () => {
    const hits = pixelBatch(2_000);
    await database.transaction((tx) => appendEventBatch(tx, 'statics.hit', hits));
    const { producer, sent } = recordingProducer();
    await drain(createKafkaRelay(database, silentLogger, () => producer, { prefix: 'cliffhanger', maxBytes: BOUND, compression: 'gzip' }));

    expect(sent.reduce((sum, batch) => sum + callBytes(batch), 0)).toBeGreaterThan(1024 * 1024);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const batch of sent) {
      expect(callBytes(batch)).toBeLessThanOrEqual(BOUND);
      expect(batch.compression).toBe(CompressionTypes.GZIP);
    }
    const delivered = sent.flatMap((batch) => batch.topicMessages.flatMap(({ messages }) => messages.map((message) => decodeEvent(message.value, message.headers))));
    expect(delivered.map((event) => event.userId)).toEqual(hits.map((hit) => hit.userId));
    expect(new Set(delivered.map((event) => event.id)).size).toBe(2_000);
    expect(await unpublished()).toBe(0);
    expect(await deadEvents()).toEqual([]);
  });

  it('sets aside an event too large to send alone, with its error, and sends every other family', async () => {
    const before = await database.transaction((tx) => appendEvent(tx, context, 'favorite.changed', { videoId: 'v1', favorite: true }));
    const huge = await database.transaction((tx) => appendEvent(tx, context, 'favorite.changed', { videoId: 'x'.repeat(20_000), favorite: true }));
    const after = await database.transaction((tx) => appendEvent(tx, context, 'user.registered', { email: 'a@example.com', wasGuest: false }));
    const { producer, sent } = recordingProducer();
    await drain(createKafkaRelay(database, silentLogger, () => producer, { prefix: 'cliffhanger', maxBytes: 16_384, compression: 'gzip' }));

    expect(sent.flatMap(idsOf)).toEqual([before.id, after.id]);
    expect(await deadEvents()).toEqual([{ consumer: RELAY_CONSUMER, event_id: huge.id, error: expect.stringMatching(/over the 16384 .*KAFKA_BATCH_MAX_BYTES/), outbox_event_id: null }]);
    expect(await unpublished()).toBe(0);
  });

  it('finds the one record the broker refuses in a batch row, sets it aside by its row, and sends the rest', async () => {
    const hits = pixelBatch(40);
    await database.transaction((tx) => appendEventBatch(tx, 'statics.hit', hits));
    const other = await database.transaction((tx) => appendEvent(tx, context, 'order.created', { orderId: 'o1', planId: 'vip', price: { amount: 1, currency: 'USD' } }));
    const poisoned = hits[17]!.userId;
    const { producer, sent } = recordingProducer((batch) =>
      batch.topicMessages.some(({ messages }) => messages.some((message) => message.key === poisoned)) ? tooLarge() : null,
    );
    await drain(createKafkaRelay(database, silentLogger, () => producer, { prefix: 'cliffhanger', maxBytes: BOUND, compression: 'gzip' }));

    const keys = sent.flatMap((batch) => batch.topicMessages.flatMap(({ messages }) => messages.map((message) => message.key)));
    expect(keys).toEqual([...hits.map((hit) => hit.userId).filter((user) => user !== poisoned), 'u1']);
    expect(sent.flatMap(idsOf)).toContain(other.id);
    const [dead, ...more] = await deadEvents();
    expect(more).toEqual([]);
    expect(dead).toMatchObject({ consumer: RELAY_CONSUMER, error: expect.stringContaining('larger than the max message size') });
    expect(dead!.outbox_event_id).toEqual(expect.any(String));
    expect(await unpublished()).toBe(0);
  });

  it('leaves every row waiting in the outbox, and sets nothing aside, while the broker cannot be reached', async () => {
    await database.transaction((tx) => appendEvent(tx, context, 'favorite.changed', { videoId: 'v1', favorite: true }));
    const unreachable = new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9'), { retryCount: 3, retryTime: 1000 } as never);
    const { producer } = recordingProducer(() => unreachable);
    const relay = createKafkaRelay(database, silentLogger, () => producer, { prefix: 'cliffhanger', maxBytes: BOUND, compression: 'gzip' });
    await expect(relay.publishCommittedEvents()).rejects.toThrow(/ECONNREFUSED/);
    expect(await unpublished()).toBe(1);
    expect(await deadEvents()).toEqual([]);
  });
});

describe("the relay's wait for a broker that is away", () => {
  const bounds = { baseMs: 500, maxMs: 30_000 };
  it('doubles from the base to the bound, each wait between half and all of its ceiling', () => {
    for (const [failures, ceiling] of [[1, 500], [2, 1_000], [3, 2_000], [7, 30_000], [40, 30_000], [5_000, 30_000]] as const) {
      expect(reconnectDelayMs(failures, bounds, () => 0)).toBe(ceiling / 2);
      expect(reconnectDelayMs(failures, bounds, () => 0.999_999)).toBe(ceiling);
      for (let draw = 0; draw < 50; draw++) {
        const wait = reconnectDelayMs(failures, bounds);
        expect(wait).toBeGreaterThanOrEqual(ceiling / 2);
        expect(wait).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('spreads the waits of many relays failing together', () => {
    const waits = new Set(Array.from({ length: 20 }, () => reconnectDelayMs(6, bounds)));
    expect(waits.size).toBeGreaterThan(10);
  });
});
