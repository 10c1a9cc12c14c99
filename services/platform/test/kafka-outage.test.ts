// A Kafka outage on librdkafka's mock cluster (Debian's kcat): a process starts and stays ready
// while no broker answers, its events wait in the outbox, and once a broker comes up every one of
// them reaches its consumer once. Where kcat is missing CI fails this suite instead of skipping it.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  appendEvent,
  appendEventBatch,
  createKafkaBus,
  createPlatform,
  createServiceApp,
  kafkaBusOptions,
  queryRows,
  startPlatform,
  stopPlatform,
  type RequestContext,
} from '../src/index.ts';
import { eventually, freePort, kcatInstalled, openTestDatabase, outboxEvents, startKafkaMockCluster, testConfig, type KafkaMockCluster } from '../src/testing/index.ts';

const kcat = kcatInstalled();
if (!kcat && process.env.CI === 'true')
  describe('a Kafka outage', () => {
    it('runs in CI', () => {
      throw new Error('kcat not found (apt-get install -y kcat): the Kafka outage suite cannot run on the mock cluster');
    });
  });

/**
 * The broker address the process was given, where nothing listens until `open`: then it forwards
 * to the mock cluster's first broker, which tells the client where the others are, as a broker's
 * bootstrap address does once the broker is back.
 */
async function laterBroker(port: number) {
  const server = net.createServer();
  const sockets = new Set<net.Socket>();
  return {
    address: `127.0.0.1:${port}`,
    async open(target: string) {
      const [host, targetPort] = target.split(':') as [string, string];
      server.on('connection', (client) => {
        const upstream = net.connect(Number(targetPort), host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
          socket.on('close', () => sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      expect((server.address() as AddressInfo).port).toBe(port);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}

/** A logger that keeps what it was told, to see the relay's tries while the broker is away. */
function keptLogger() {
  const lines: { msg: string; failures?: number }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

const context: RequestContext = { requestId: 'r-outage', userId: 'u1', attribution: { referrerToken: null, fbclid: null, ttclid: null } };

describe.skipIf(!kcat)('a Kafka outage', () => {
  let cluster: KafkaMockCluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('leaves the site ready with the bus degraded, keeps its events in the outbox, and delivers each once when the broker comes', async () => {
    const broker = await laterBroker(await freePort());
    onTestFinished(() => broker.close());
    const { logger, lines } = keptLogger();
    const config = testConfig({ KAFKA_BROKERS: broker.address, KAFKA_BATCH_MAX_BYTES: '65536', KAFKA_RECONNECT_MAX_MS: '2000' });
    const database = await openTestDatabase();
    const prefix = `cliffhanger-o${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    // The mock cluster lacks the idempotent producer and answers a fetch only when its wait ends.
    const bus = createKafkaBus(database, logger, { ...kafkaBusOptions(config, config.KAFKA_BROKERS!), topicPrefix: prefix, idempotent: false, fetchMaxWaitMs: 100, pollMs: 50 });
    const platform = await createPlatform(config, { database, logger, bus });
    const delivered: string[] = [];
    platform.bus.subscribe('outage-reader', ['favorite.changed', 'statics.hit'], async (event) => void delivered.push(event.id));

    // Start-up completes with no broker anywhere.
    await startPlatform(platform);
    onTestFinished(() => stopPlatform(platform));
    const server = createServiceApp(platform, 'internal-token-for-tests', []).listen(0, '127.0.0.1');
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await new Promise((resolve) => server.once('listening', resolve));
    const readyz = async () => {
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`);
      return { status: answer.status, body: (await answer.json()) as { data: { status: string; bus: string; busStatus: string } } };
    };
    expect(await readyz()).toEqual({ status: 200, body: expect.objectContaining({ data: { status: 'ready', database: database.kind, bus: 'kafka', busStatus: 'degraded' } }) });
    const metrics = async () => (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)).text();
    expect(await metrics()).toMatch(/^event_bus_degraded{service="all"} 1$/m);

    // Events written meanwhile: single rows of many users, and a pixel batch several produce calls long.
    const written: string[] = [];
    for (let n = 0; n < 30; n++) {
      const event = await database.transaction((tx) => appendEvent(tx, { ...context, userId: `u${n % 6}` }, 'favorite.changed', { videoId: `v${n}`, favorite: true }));
      written.push(event.id);
    }
    const hits = Array.from({ length: 800 }, (_, n) => ({
      userId: `guest-${n % 40}`,
      time: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
      attribution: { referrerToken: null, fbclid: `IwAR${n}`, ttclid: null },
      data: { event: 'episode_view', videoId: `v${n % 9}`, path: `/video/v${n % 9}/episode/${n % 60}`, params: { utm_source: 'facebook' }, userAgent: 'Mozilla/5.0 '.repeat(10) },
    }));
    await database.transaction((tx) => appendEventBatch(tx, 'statics.hit', hits));
    platform.bus.nudge();
    const unpublished = async () => (await queryRows(database.db, sql`select 1 from platform.outbox where published_at is null`)).length;
    const triesSoFar = lines.filter((line) => line.msg.startsWith('kafka relay: broker unreachable')).length;
    await eventually(() => lines.filter((line) => line.msg.startsWith('kafka relay: broker unreachable')).length >= triesSoFar + 2, 60_000, 'the relay to try twice more');
    expect(await unpublished()).toBe(31);
    expect(delivered).toEqual([]);
    expect((await readyz()).body.data.busStatus).toBe('degraded');

    // The broker comes: everything waiting reaches the consumer, once.
    cluster = await startKafkaMockCluster();
    await broker.open(cluster.brokers[0]!);
    await eventually(async () => (await unpublished()) === 0 && delivered.length >= 830, 120_000, 'every event delivered');
    await eventually(async () => (await readyz()).body.data.busStatus === 'up', 60_000, 'the bus to report itself up');
    expect(await metrics()).toMatch(/^event_bus_degraded{service="all"} 0$/m);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const hitIds = (await outboxEvents(database.db, 'statics.hit')).map((hit) => hit.id);
    expect(delivered).toHaveLength(830);
    expect(new Set(delivered)).toEqual(new Set([...written, ...hitIds]));
    expect(await queryRows(database.db, sql`select 1 from platform.dead_events`)).toEqual([]);
  }, 300_000);
});
