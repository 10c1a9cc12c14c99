import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger, defineModule, installTracing, type BusEvent } from '@cliffhanger/platform';
import { eventually, startSite, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';

// Tracing is global to a process: this suite's exporter is installed before any site starts.
const exporter = new InMemorySpanExporter();
installTracing({ serviceName: 'tracing-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });

/** A module reacting to registrations, as any consumer of the bus does. */
const welcomed: BusEvent[] = [];
const listener = defineModule<never>({
  name: 'listener',
  init: ({ platform }) => {
    platform.bus.subscribe('listener.welcome', ['user.registered'], async (event) => void welcomed.push(event));
    return {};
  },
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** What the storefront sends on every call: a new trace, its own span id, nothing recorded. */
const browserCall = () => {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-00` };
};

const kinds = { [SpanKind.SERVER]: 'server', [SpanKind.CLIENT]: 'client', [SpanKind.PRODUCER]: 'producer', [SpanKind.CONSUMER]: 'consumer', [SpanKind.INTERNAL]: 'internal' };

/** A span and its ancestors up to the first one whose parent was not recorded here, as `kind name`. */
function lineage(span: ReadableSpan, spans: ReadableSpan[]): string[] {
  const byId = new Map(spans.map((each) => [each.spanContext().spanId, each]));
  const names: string[] = [];
  for (let at: ReadableSpan | undefined = span; at; at = byId.get(at.parentSpanContext?.spanId ?? '')) names.push(`${kinds[at.kind]} ${at.name}`);
  return names;
}

const registration = () => {
  const email = `traced-${hex(4)}@example.com`;
  return { email, password: 'traced-pass-1', confirmPassword: 'traced-pass-1' };
};

/** The consumer's span of the registration `email` made, once the bus has delivered it. */
async function consumed(traceId: string, email: string) {
  await eventually(() => welcomed.some((event) => event.data.email === email), 10_000, 'the consumer to receive user.registered');
  return eventually(
    () => exporter.getFinishedSpans().find((span) => span.name === 'process user.registered' && span.spanContext().traceId === traceId),
    10_000,
    'the consumer span',
  );
}

const sites: Site[] = [];
afterEach(async () => {
  await Promise.all(sites.splice(0).map((site) => site.close()));
  exporter.reset();
});
afterAll(() => exporter.shutdown());

describe('one trace from the browser call to the consumer', () => {
  it('spans gateway, database transaction, outbox and consumer under the trace id the browser sent', async () => {
    const site = await startSite({ modules: [...registry.modules, listener], env: { DEMO: '0' } });
    sites.push(site);
    const browser = browserCall();
    const body = registration();
    const answer = await site.call('POST', '/api/user/register', { body, headers: { traceparent: browser.traceparent } });
    expect(answer.code).toBe(200);

    const consumer = await consumed(browser.traceId, body.email);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === browser.traceId);
    expect(lineage(consumer, spans)).toEqual([
      'consumer process user.registered',
      'producer publish user.registered',
      'client db transaction',
      'server POST /api/user/register',
    ]);
    const gateway = spans.find((span) => span.name === 'POST /api/user/register')!;
    expect(gateway.parentSpanContext?.spanId).toBe(browser.spanId);
    expect(gateway.attributes).toMatchObject({ 'http.route': '/api/user/register', 'http.response.status_code': 200 });
    // The event carries its publish span's context, on to the consumers of either bus.
    const event = welcomed.find((each) => each.data.email === body.email)!;
    const publish = spans.find((span) => span.name === 'publish user.registered')!;
    expect(event.traceparent).toBe(`00-${browser.traceId}-${publish.spanContext().spanId}-01`);
  });

  it('keeps the trace when the request body arrives in parts, after the span began', async () => {
    const site = await startSite({ modules: [...registry.modules, listener], env: { DEMO: '0' } });
    sites.push(site);
    const browser = browserCall();
    const body = JSON.stringify(registration());
    const { port } = new URL(site.url);
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/user/register', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), traceparent: browser.traceparent } });
    const answered = new Promise<number>((resolve, reject) => {
      request.on('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode!);
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));
    request.end(body.slice(10));
    expect(await answered).toBe(200);

    const consumer = await consumed(browser.traceId, JSON.parse(body).email);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === browser.traceId);
    expect(lineage(consumer, spans).at(-1)).toBe('server POST /api/user/register');
  });

  it('keeps the trace through the gateway, the forwarded call and the service when they run apart', async () => {
    const internal = { INTERNAL_TOKEN: 'tracing-test-internal-token', DEMO: '0' };
    const modules = [...registry.modules.filter((module) => ['user', 'catalog', 'unlock', 'transcoder'].includes(module.name)), listener];
    const service = await startSite({ modules, env: { ...internal, TARGET: 'user,catalog,unlock,transcoder,listener' } });
    sites.push(service);
    const urls = Object.fromEntries(['USER', 'CATALOG', 'UNLOCK', 'TRANSCODER'].map((name) => [`${name}_SERVICE_URL`, service.url]));
    const gateway = await startSite({ modules, env: { ...internal, ...urls, TARGET: 'gateway' } });
    sites.push(gateway);

    const browser = browserCall();
    const body = registration();
    const answer = await gateway.call('POST', '/api/user/register', { body, headers: { traceparent: browser.traceparent } });
    expect(answer.code).toBe(200);

    const consumer = await consumed(browser.traceId, body.email);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === browser.traceId);
    expect(lineage(consumer, spans)).toEqual([
      'consumer process user.registered',
      'producer publish user.registered',
      'client db transaction',
      'server POST /api/user/register',
      'client POST',
      'server POST',
    ]);
    const edge = spans.find((span) => span.kind === SpanKind.SERVER && span.name === 'POST')!;
    expect(edge.parentSpanContext?.spanId).toBe(browser.spanId);
    expect(spans.find((span) => span.kind === SpanKind.CLIENT && span.name === 'POST')!.attributes['url.full']).toBe(`${service.url}/api/user/register`);
  });

  it('writes the trace and span ids on log lines inside a span', () => {
    const lines: string[] = [];
    const logger = createLogger('info', 'tracing-test', { write: (line: string) => void lines.push(line) });
    logger.info('outside');
    const ids = trace.getTracer('tracing-test').startActiveSpan('inside', (span) => {
      logger.info('inside');
      span.end();
      return span.spanContext();
    });
    const [outside, inside] = lines.map((line) => JSON.parse(line));
    expect(outside).not.toHaveProperty('trace_id');
    expect(inside).toMatchObject({ msg: 'inside', trace_id: ids.traceId, span_id: ids.spanId });
  });
});
