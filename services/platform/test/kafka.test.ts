import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeEnvelope, decodePayload } from '@cliffhanger/proto';
import { sql } from 'drizzle-orm';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  appendEvent,
  createKafkaBus,
  decodeEvent,
  migrate,
  openPostgres,
  platformMigrations,
  queryRows,
  type BusEvent,
  type Database,
  type EventType,
  type KafkaBusOptions,
  type RequestContext,
} from '../src/index.ts';
import {
  createScratchDatabase,
  eventually,
  kcatInstalled,
  openMigratedDatabase,
  realDatabaseUrl,
  silentLogger,
  startKafkaMockCluster,
  type KafkaMockCluster,
} from '../src/testing/index.ts';
import { busContract, fastDelivery } from './bus.contract.ts';

// The Kafka adapter runs the bus contract on librdkafka's mock cluster (Debian's kcat), which
// speaks the Kafka protocol on loopback: everywhere kcat is installed, CI included, where a
// missing kcat fails the suite instead of skipping it. Where a Docker engine runs, the contract
// also runs against a real broker (testcontainers), the idempotent producer on, when the broker's
// image is on the engine already: a machine that cannot reach a registry (CI's) would otherwise
// fail the suite pulling it.
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const kcat = kcatInstalled();
const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.6.1';
const imagePresent = (image: string) => {
  try {
    execFileSync('docker', ['image', 'inspect', image], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
};
const dockerEngine = (Boolean(process.env.DOCKER_HOST) || fs.existsSync('/var/run/docker.sock')) && imagePresent(KAFKA_IMAGE);
const noKcat = "kcat not found (apt-get install -y kcat; .ci/run installs it): the Kafka contract cannot run on librdkafka's mock cluster";

if (!kcat && process.env.CI === 'true')
  describe("Kafka on librdkafka's mock cluster", () => {
    it('runs in CI', () => {
      throw new Error(noKcat);
    });
  });
else if (!kcat) console.warn(`${noKcat}; skipped`);

const context: RequestContext = {
  requestId: 'r-wire',
  userId: 'u9',
  attribution: { referrerToken: 'ref-9', fbclid: 'fb-9', ttclid: null, utmSource: 'news', utmCampaign: 'spring' },
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};

// Each database gets topics of its own, so a test never reads what an earlier one left on the cluster.
const prefixes = new WeakMap<Database, string>();
const prefixOf = (database: Database) => {
  if (!prefixes.has(database)) prefixes.set(database, `cliffhanger-t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`);
  return prefixes.get(database)!;
};

/** Reads topics raw, as another client would, collecting every message from the beginning. */
async function readTopics(brokers: string[], topics: string[]) {
  const kafka = new Kafka({ clientId: 'raw-reader', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `raw-${Math.random().toString(36).slice(2)}`, maxWaitTimeInMs: 100 });
  const messages: { topic: string; key: string | null; value: Buffer; headers: Record<string, string> }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, message }) => {
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
      messages.push({ topic, key: message.key?.toString() ?? null, value: message.value!, headers });
    },
  });
  return { messages, stop: () => consumer.disconnect() };
}

async function migrated(database: Database) {
  await migrate(database, 'platform', platformMigrations);
  return database;
}

describe("kafkajs's consumer runner, as the bus mends it", () => {
  it("fails a stopped consumer's fetch, which answered [] at once and spun a fetcher no one stopped for ever", async () => {
    const Runner = createRequire(import.meta.url)('kafkajs/src/consumer/runner.js') as { prototype: { fetch(this: { running: boolean }, nodeId: number): Promise<unknown[]> } };
    await expect(Runner.prototype.fetch.call({ running: false }, 1)).rejects.toThrow('kafka consumer stopped');
  });
});

describe.skipIf(!kcat)("Kafka on librdkafka's mock cluster", () => {
  let cluster: KafkaMockCluster;
  const mockBus = (database: Database, options: Partial<KafkaBusOptions> = {}) =>
    createKafkaBus(database, silentLogger, {
      brokers: cluster.brokers,
      clientId: 'contract',
      pollMs: 50,
      delivery: fastDelivery,
      topicPrefix: prefixOf(database),
      idempotent: false,
      fetchMaxWaitMs: 100,
      ...options,
    });

  beforeAll(async () => {
    cluster = await startKafkaMockCluster();
    console.info(
      `Kafka mock cluster at ${cluster.brokers.join(',')}: idempotent producer off (the mock lacks it for kafkajs), ` +
        'fetchMaxWaitMs 100 (the mock answers a fetch only when its wait ends); ' +
        (dockerEngine ? 'the testcontainers suite runs it against a real broker' : 'no Docker engine, so no real broker covers it in this run'),
    );
  });
  afterAll(() => cluster?.stop());

  busContract('Kafka (librdkafka mock cluster)', (database) => mockBus(database));

  describe('events on the wire', () => {
    let database: Database;
    beforeAll(async () => {
      database = await openMigratedDatabase();
    });
    afterAll(() => database?.close());

    it("travel as protobuf on their family's topic, keyed by user, with type, schema version and trace context in headers", async () => {
      const bus = mockBus(database);
      await bus.start();
      const reader = await readTopics(cluster.brokers, [`${prefixOf(database)}.order`]);
      try {
        const price = { amount: 499, currency: 'USD' };
        const sent = await database.transaction((tx) => appendEvent(tx, context, 'order.created', { orderId: 'o1', planId: 'vip-month', price }));
        bus.nudge();
        await eventually(() => reader.messages.length === 1, 60_000, 'the message');
        const [message] = reader.messages;
        expect(message!.key).toBe('u9');
        expect(message!.headers).toEqual({
          'ce-id': sent.id,
          'ce-type': 'order.created',
          'content-type': 'application/x-protobuf',
          'schema-version': 'v1',
          traceparent: context.traceparent,
        });
        const envelope = decodeEnvelope(message!.value);
        expect(envelope).toMatchObject({ id: sent.id, type: 'order.created', userId: 'u9', attribution: { referrerToken: 'ref-9', fbclid: 'fb-9', utmSource: 'news', utmCampaign: 'spring' } });
        expect(decodePayload('order.created', envelope.payload)).toEqual({ orderId: 'o1', planId: 'vip-month', price });
        expect(decodeEvent(message!.value, message!.headers)).toEqual(sent);
        await eventually(() => bus.health() === 'up', 60_000, 'the bus to report itself up');
      } finally {
        await reader.stop();
        await bus.stop();
      }
    });

    it("keep one user's order through one relay at a time, whichever of two processes consumes them", async () => {
      const users = ['ua', 'ub', 'uc', 'ud', 'ue'];
      const seen = new Map<string, number[]>(users.map((user) => [user, []]));
      const [one, two] = [mockBus(database), mockBus(database)];
      for (const bus of [one!, two!])
        bus.subscribe('ordered', ['favorite.changed'], async (event) => void seen.get(event.userId!)!.push(Number(event.data.videoId)));
      await Promise.all([one!.start(), two!.start()]);
      try {
        for (let n = 1; n <= 12; n++)
          for (const user of users)
            await database.transaction((tx) => appendEvent(tx, { ...context, userId: user }, 'favorite.changed', { videoId: String(n), favorite: true }));
        // Two members joining one group rebalance it, which on a loaded machine takes a heartbeat or several.
        await eventually(() => [...seen.values()].every((numbers) => numbers.length === 12), 120_000, 'every event');
        for (const numbers of seen.values()) expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      } finally {
        await Promise.all([one!.stop(), two!.stop()]);
      }
    }, 180_000);

    it('npm run tail-events prints each event decoded, one JSON line each', async () => {
      // Topics of its own: the tail reads them from the beginning.
      const database = await openMigratedDatabase();
      onTestFinished(() => database.close());
      const bus = mockBus(database);
      await bus.start();
      const published: BusEvent[] = [];
      try {
        published.push(await database.transaction((tx) => appendEvent(tx, context, 'user.registered', { email: 'tail@example.com', wasGuest: true })));
        published.push(await database.transaction((tx) => appendEvent(tx, context, 'checkin.claimed', { day: '2026-01-02', streak: 3, coinsAwarded: 10 })));
        bus.nudge();
        await eventually(
          async () => (await queryRows(database.db, sql`select 1 from platform.outbox where published_at is null`)).length === 0,
          20_000,
          'the relay',
        );
      } finally {
        await bus.stop();
      }
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'scripts/tail-events.ts', '--from-beginning', '--limit', '2', '--prefix', prefixOf(database)],
        { cwd: root, env: { ...process.env, KAFKA_BROKERS: cluster.brokers.join(',') }, timeout: 60_000 },
      );
      const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as BusEvent & { topic: string });
      const byType = (type: EventType) => lines.find((line) => line.type === type);
      expect(lines).toHaveLength(2);
      expect(byType('user.registered')).toEqual({ ...published[0], topic: `${prefixOf(database)}.user`, partition: expect.any(Number), offset: 0, key: 'u9' });
      expect(byType('checkin.claimed')).toMatchObject({ id: published[1]!.id, data: { day: '2026-01-02', streak: 3, coinsAwarded: 10 } });
    }, 90_000);
  });

  describe('an outage', () => {
    it('keeps the events appended while the brokers hang in the outbox, reports degraded, and delivers every one once, in order, when they answer again', async () => {
      // A cluster of its own: the one the other tests share is not stopped under them.
      const own = await startKafkaMockCluster();
      const database = await openMigratedDatabase();
      const applied: number[] = [];
      // Requests given up after 2 s rather than kafkajs' 30 s: the hang is found out within the test.
      const bus = mockBus(database, { brokers: own.brokers, requestTimeoutMs: 2_000, reconnect: { baseMs: 100, maxMs: 1_000 } });
      bus.subscribe('outage', ['favorite.changed'], async (event) => void applied.push(Number((event.data as { videoId: string }).videoId.slice(2))));
      const append = (from: number, to: number) =>
        database.transaction(async (tx) => {
          for (let n = from; n < to; n++) await appendEvent(tx, context, 'favorite.changed', { videoId: `v-${n}`, favorite: true });
          bus.nudge();
        });
      const range = (to: number) => Array.from({ length: to }, (_, n) => n);
      const unpublished = async () => (await queryRows<{ count: number }>(database.db, sql`select count(*)::int as count from platform.outbox where published_at is null`))[0]!.count;
      await bus.start();
      try {
        await append(0, 5);
        await eventually(() => applied.length === 5 && bus.health() === 'up', 60_000, 'the first events applied');

        own.pause();
        // The site goes on: events are appended (a viewer's actions commit) while nothing reaches the broker.
        for (let batch = 5; batch < 25; batch += 5) {
          await append(batch, batch + 5);
          await sleep(200);
        }
        await eventually(() => bus.health() === 'degraded', 60_000, 'the bus to report itself degraded');
        expect(await unpublished()).toBeGreaterThan(0);
        expect(applied).toEqual(range(5));

        own.resume();
        await append(25, 30);
        await eventually(async () => applied.length >= 30 && bus.health() === 'up' && (await unpublished()) === 0, 120_000, 'every event applied after the outage');
        // A send the client gave up on may have reached the broker and be sent again: the consumer
        // drops the copy by event id, so each is applied once, and one user's events keep their order.
        await sleep(1_000);
        expect(applied).toEqual(range(30));
      } finally {
        own.resume();
        await bus.stop();
        await database.close();
        await own.stop();
      }
    }, 240_000);
  });

  describe.skipIf(!realDatabaseUrl)('the relay on PostgreSQL', () => {
    it('sends again, after a restart, an event it sent but was killed before marking, and the consumer applies it once', async () => {
      const scratch = await createScratchDatabase();
      const database = await migrated(await openPostgres(scratch.url, 4));
      const prefix = prefixOf(database);
      const reader = await readTopics(cluster.brokers, [`${prefix}.favorite`]);
      const blocker = new pg.Client({ connectionString: scratch.url });
      const relay = { process: null as ReturnType<typeof spawn> | null };
      try {
        const event = await database.transaction((tx) => appendEvent(tx, context, 'favorite.changed', { videoId: 'v-crash', favorite: true }));
        // SHARE mode lets the relay read the outbox and send, and holds its update: the mark never lands.
        await blocker.connect();
        await blocker.query('begin');
        await blocker.query('lock table platform.outbox in share mode');
        relay.process = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures/kafka-relay.ts'), scratch.url, cluster.brokers.join(','), prefix], {
          stdio: 'ignore',
        });
        const copies = () => reader.messages.filter((message) => message.headers['ce-id'] === event.id).length;
        await eventually(() => copies() === 1, 60_000, 'the killed relay to send the event');
        const exited = new Promise((resolve) => relay.process!.once('exit', resolve));
        relay.process.kill('SIGKILL');
        await exited;
        await blocker.query('rollback');
        expect(await queryRows(database.db, sql`select published_at from platform.outbox where event_id = ${event.id}`)).toEqual([{ published_at: null }]);

        const applied: string[] = [];
        const bus = mockBus(database);
        bus.subscribe('after-crash', ['favorite.changed'], async (delivered) => void applied.push(delivered.id));
        await bus.start();
        try {
          await eventually(() => copies() === 2 && applied.length === 1, 60_000, 'the event sent again and applied');
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(applied).toEqual([event.id]);
        } finally {
          await bus.stop();
        }
      } finally {
        relay.process?.kill('SIGKILL');
        await blocker.end().catch(() => {});
        await reader.stop();
        await database.close();
        await scratch.drop();
      }
    }, 90_000);
  });
});

describe.skipIf(!dockerEngine)('Kafka on a real broker (testcontainers)', () => {
  let brokers: string[] = [];
  let stopContainer = async () => {};
  beforeAll(async () => {
    const { KafkaContainer } = await import('@testcontainers/kafka');
    const container = await new KafkaContainer(KAFKA_IMAGE).withKraft().start();
    brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
    stopContainer = async () => void (await container.stop());
  }, 180_000);
  afterAll(() => stopContainer());

  busContract('Kafka (testcontainers, idempotent producer)', (database) =>
    createKafkaBus(database, silentLogger, { brokers, clientId: 'contract', pollMs: 50, delivery: fastDelivery, topicPrefix: prefixOf(database) }),
  );
});
if (!dockerEngine) console.warn(`no Docker engine with ${KAFKA_IMAGE} on it: the real-broker Kafka suite skipped; the mock cluster suite runs the contract`);
