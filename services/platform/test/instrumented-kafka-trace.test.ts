// One trace from an incoming HTTP request carrying a browser's traceparent, through the outbox, the
// Kafka relay and a consumer of the Kafka bus, on librdkafka's mock cluster (kcat). The relay sends
// with tracing suppressed: kafkajs's instrumentation starts no trace per message and leaves the
// outbox's `traceparent` header as it is, which its span of the received message then continues.
import { once } from 'node:events';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';

await import('../src/observability/instrument.ts');
// Under vitest a CommonJS package imported from a test may come out unpatched (see gateway/test/instrument.setup.ts).
createRequire(import.meta.url)('kafkajs');
const { appendEvent, createKafkaBus, installTracing, systemContext } = await import('../src/index.ts');
const { eventually, kcatInstalled, openMigratedDatabase, silentLogger, startKafkaMockCluster } = await import('../src/testing/index.ts');
const { fastDelivery } = await import('./bus.contract.ts');

const exporter = new InMemorySpanExporter();
installTracing({ serviceName: 'instrumented-kafka-trace-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
afterAll(() => exporter.shutdown());

function lineage(span: ReadableSpan): string[] {
  const byId = new Map(exporter.getFinishedSpans().map((each) => [each.spanContext().spanId, each]));
  const names: string[] = [];
  for (let at: ReadableSpan | undefined = span; at; at = byId.get(at.parentSpanContext?.spanId ?? '')) names.push(at.name);
  return names;
}

describe.skipIf(!kcatInstalled())("on Kafka (librdkafka's mock cluster)", () => {
  it("a browser's call is one trace through its HTTP span, the outbox, the relay and the consumer", async () => {
    const cluster = await startKafkaMockCluster();
    const database = await openMigratedDatabase();
    const prefix = `cliffhanger-t${Date.now().toString(36)}`;
    const bus = createKafkaBus(database, silentLogger, {
      brokers: cluster.brokers, clientId: 'traced', pollMs: 50, delivery: fastDelivery, topicPrefix: prefix, idempotent: false, fetchMaxWaitMs: 100,
    });
    const welcomed: string[] = [];
    bus.subscribe('welcome', ['user.registered'], async (event) => void welcomed.push(event.id));
    await bus.start();
    const server = http.createServer((_req, res) => {
      void database
        .transaction((tx) => appendEvent(tx, { ...systemContext(), userId: 'u1' }, 'user.registered', { email: 'k@example.com', wasGuest: false }))
        .then((event) => res.end(JSON.stringify({ id: event.id })));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const traceId = '5cf92f3577b34da6a3ce929d0e0e4737';
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/user/register`, {
        method: 'POST',
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-00` },
      });
      const { id } = (await response.json()) as { id: string };
      bus.nudge();
      await eventually(() => welcomed.includes(id), 30_000, 'the consumer got the event over Kafka');
      const handled = await eventually(() => exporter.getFinishedSpans().find((span) => span.name === 'process user.registered'), 10_000, 'its span');
      // kafkajs's span of the message ends after the handler's span inside it: wait for the whole line to have ended.
      await eventually(() => lineage(handled).length >= 4, 10_000, 'the spans it continues to end');

      expect(handled.spanContext().traceId).toBe(traceId);
      const incoming = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER && span.spanContext().traceId === traceId)!;
      expect(lineage(handled)).toEqual(['process user.registered', `process ${prefix}.user`, 'publish user.registered', incoming.name]);
      // The relay's send made no span, in this trace or a trace of its own.
      expect(exporter.getFinishedSpans().filter((span) => span.name.startsWith('send '))).toEqual([]);
    } finally {
      server.close();
      await bus.stop();
      await database.close();
      await cluster.stop();
    }
  }, 120_000);
});
