// One trace from an incoming HTTP request carrying a browser's traceparent, through the spans the
// libraries' own instrumentations make (node:http, express, pg), the event's `publish` span in the
// outbox and its consumer's `process` span. The instrumentations patch libraries as they load, so
// this file loads them (instrument.ts) before it imports anything that imports express or pg.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, expect, it } from 'vitest';

await import('../src/observability/instrument.ts');
const { default: express } = await import('express');
const { appendEvent, createPostgresBus, installTracing, systemContext } = await import('../src/index.ts');
const { eventually, openMigratedDatabase, silentLogger } = await import('../src/testing/index.ts');
const { fastDelivery } = await import('./bus.contract.ts');

const exporter = new InMemorySpanExporter();
installTracing({ serviceName: 'instrumented-trace-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
afterAll(() => exporter.shutdown());

/** A span and its ancestors recorded here, by name. */
function lineage(span: ReadableSpan): string[] {
  const byId = new Map(exporter.getFinishedSpans().map((each) => [each.spanContext().spanId, each]));
  const names: string[] = [];
  for (let at: ReadableSpan | undefined = span; at; at = byId.get(at.parentSpanContext?.spanId ?? '')) names.push(at.name);
  return names;
}

it("a browser's call is one trace through its HTTP span, its queries, the outbox and the consumer", async () => {
  const database = await openMigratedDatabase();
  const bus = createPostgresBus(database, silentLogger, { pollMs: 50, delivery: fastDelivery });
  const welcomed: string[] = [];
  bus.subscribe('welcome', ['user.registered'], async (event) => void welcomed.push(event.id));
  await bus.start();
  const app = express();
  app.post('/api/user/register', async (_req, res) => {
    const event = await database.transaction((tx) => appendEvent(tx, { ...systemContext(), userId: 'u1' }, 'user.registered', { email: 'a@example.com', wasGuest: false }));
    res.json({ id: event.id });
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    // The storefront's own traceparent: a new trace id per call, flagged unsampled, which names the
    // trace but does not decide whether it is recorded.
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/user/register`, {
      method: 'POST',
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-00` },
    });
    const { id } = (await response.json()) as { id: string };
    bus.nudge();
    await eventually(() => welcomed.includes(id), 20_000, 'the consumer got the event');
    const handled = await eventually(() => exporter.getFinishedSpans().find((span) => span.name === 'process user.registered'), 10_000, 'its span');

    expect(handled.spanContext().traceId).toBe(traceId);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    const incoming = spans.find((span) => span.kind === SpanKind.SERVER)!;
    expect(lineage(handled)).toEqual(['process user.registered', 'publish user.registered', incoming.name]);
    expect(incoming.instrumentationScope.name).toBe('@opentelemetry/instrumentation-http');
    expect(incoming.attributes).toMatchObject({ 'cliffhanger.caller.outside': true });
    if (database.kind === 'postgres') {
      // The queries of the request's transaction, the outbox's insert among them, are pg's own spans.
      const queries = spans.filter((span) => span.instrumentationScope.name === '@opentelemetry/instrumentation-pg' && span.name.startsWith('pg.query'));
      expect(queries.map((query) => lineage(query).at(-1))).toContain(incoming.name);
      expect(queries.some((query) => String(query.attributes['db.statement'] ?? query.attributes['db.query.text']).includes('insert into platform.outbox'))).toBe(true);
    }
  } finally {
    server.close();
    await bus.stop();
    await database.close();
  }
});
