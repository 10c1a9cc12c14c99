import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  appendEvent,
  createKafkaBus,
  createPostgresBus,
  installTracing,
  systemContext,
  type BusEvent,
  type Database,
  type EventBus,
} from '../src/index.ts';
import { eventually, kcatInstalled, openMigratedDatabase, silentLogger, startKafkaMockCluster, type KafkaMockCluster } from '../src/testing/index.ts';
import { fastDelivery } from './bus.contract.ts';

// Tracing is global to a process: this suite's exporter is installed before anything makes a span.
const exporter = new InMemorySpanExporter();
installTracing({ serviceName: 'bus-tracing-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
afterAll(() => exporter.shutdown());

/** A span and its ancestors recorded here, by name. */
function lineage(span: ReadableSpan): string[] {
  const byId = new Map(exporter.getFinishedSpans().map((each) => [each.spanContext().spanId, each]));
  const names: string[] = [];
  for (let at: ReadableSpan | undefined = span; at; at = byId.get(at.parentSpanContext?.spanId ?? '')) names.push(at.name);
  return names;
}

/** Both adapters: a consumer's span is its event's `publish` span's child, whichever bus carried it. */
function tracedDelivery(adapter: string, makeBus: (database: Database) => EventBus) {
  describe(`consumer spans on the ${adapter} bus`, () => {
    let database: Database;
    let bus: EventBus;
    afterEach(async () => {
      await bus.stop();
      await database.close();
      exporter.reset();
    });

    it("continue the trace that wrote the event, and an event a consumer writes continues it further", async () => {
      database = await openMigratedDatabase();
      bus = makeBus(database);
      const favorites: BusEvent[] = [];
      bus.subscribe('welcome', ['user.registered'], (event, tx) => appendEvent(tx, systemContext(), 'favorite.changed', { videoId: 'v1', favorite: true }, event.userId).then(() => undefined));
      bus.subscribe('lists', ['favorite.changed'], async (event) => void favorites.push(event));
      await bus.start();

      const request = await trace.getTracer('test').startActiveSpan('request', async (span) => {
        await database.transaction((tx) => appendEvent(tx, { ...systemContext(), userId: 'u1' }, 'user.registered', { email: 'a@example.com', wasGuest: false }));
        span.end();
        return span.spanContext();
      });
      bus.nudge();
      await eventually(() => favorites.length === 1, 20_000, 'the second event');
      const last = await eventually(() => exporter.getFinishedSpans().find((span) => span.name === 'process favorite.changed'), 10_000, 'its span');
      expect(last.spanContext().traceId).toBe(request.traceId);
      expect(lineage(last)).toEqual(['process favorite.changed', 'publish favorite.changed', 'process user.registered', 'publish user.registered', 'request']);
      expect(last.attributes).toMatchObject({ 'messaging.consumer.group.name': 'lists', 'messaging.message.id': favorites[0]!.id });
    });

    it('make no spans for an event written outside any trace (background work)', async () => {
      database = await openMigratedDatabase();
      bus = makeBus(database);
      const seen: BusEvent[] = [];
      bus.subscribe('lists', ['favorite.changed'], async (event) => void seen.push(event));
      await bus.start();
      await database.transaction((tx) => appendEvent(tx, systemContext(), 'favorite.changed', { videoId: 'v2', favorite: true }));
      bus.nudge();
      await eventually(() => seen.length === 1, 20_000, 'delivery');
      expect(seen[0]!.traceparent).toBeUndefined();
      expect(exporter.getFinishedSpans()).toEqual([]);
    });
  });
}

tracedDelivery('Postgres', (database) => createPostgresBus(database, silentLogger, { pollMs: 50, delivery: fastDelivery }));

// In CI a missing kcat fails here too (kafka.test.ts says how to install it), never a silent skip.
describe.skipIf(!kcatInstalled() && process.env.CI !== 'true')("Kafka on librdkafka's mock cluster", () => {
  let cluster: KafkaMockCluster;
  beforeAll(async () => {
    cluster = await startKafkaMockCluster();
  });
  afterAll(() => cluster?.stop());
  tracedDelivery('Kafka', (database) =>
    createKafkaBus(database, silentLogger, {
      brokers: cluster.brokers,
      clientId: 'tracing',
      pollMs: 50,
      delivery: fastDelivery,
      topicPrefix: `cliffhanger-trace${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
      idempotent: false,
      fetchMaxWaitMs: 100,
    }),
  );
});
