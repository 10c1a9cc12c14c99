import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger, defineModule, installTracing, type BusEvent } from '@cliffhanger/platform';
import { eventually, startSite, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';

// Tracing is global to a process: this suite's exporter is installed before any site starts. The
// spans of HTTP, express and pg are OpenTelemetry's instrumentations', registered before anything
// loaded (test/instrument.setup.ts, as src/main.ts does); the outbox's and consumers' are ours.
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

/** The transaction's span between the request's and the outbox's: PGlite's, made by hand; on PostgreSQL, pg's queries are spans of the request instead. */
const transaction = (site: Site) => (site.platform.database.kind === 'pglite' ? ['client db transaction'] : []);

/** pg's spans of a trace (PostgreSQL only), each a descendant of the request's span. */
function queries(spans: ReadableSpan[]) {
  return spans.filter((span) => span.instrumentationScope.name === '@opentelemetry/instrumentation-pg' && span.name.startsWith('pg.query'));
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
      ...transaction(site),
      'internal request handler',
      'server POST /api/user/register',
    ]);
    const gateway = spans.find((span) => span.name === 'POST /api/user/register')!;
    expect(gateway.instrumentationScope.name).toBe('@opentelemetry/instrumentation-http');
    expect(gateway.parentSpanContext?.spanId).toBe(browser.spanId);
    expect(gateway.attributes).toMatchObject({ 'http.route': '/api/user/register', 'http.response.status_code': 200, 'cliffhanger.caller.outside': true });
    // express's spans of the route, and on PostgreSQL pg's of its queries (the outbox's insert among them).
    expect(spans.some((span) => span.instrumentationScope.name === '@opentelemetry/instrumentation-express')).toBe(true);
    if (site.platform.database.kind === 'postgres') {
      // Every query of the trace hangs under the request. Other consumers of user.registered may still
      // be in their delivery when the first has ended: their queries are recorded before their own
      // process span is, so the whole tree is read once it is complete.
      const underRequest = () => {
        const traced = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === browser.traceId);
        return queries(traced).every((query) => lineage(query, traced).at(-1) === 'server POST /api/user/register');
      };
      await eventually(() => underRequest() || null, 10_000, 'every query of the trace under the request');
      expect(queries(spans).some((query) => String(query.attributes['db.query.text'] ?? query.attributes['db.statement']).includes('platform.outbox'))).toBe(true);
    }
    // The event carries its publish span's context, on to the consumers of either bus.
    const event = welcomed.find((each) => each.data.email === body.email)!;
    const publish = spans.find((span) => span.name === 'publish user.registered')!;
    expect(event.traceparent).toBe(`00-${browser.traceId}-${publish.spanContext().spanId}-01`);
  }, 120_000);

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
  }, 120_000);

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
      ...transaction(service),
      'internal request handler',
      'server POST /api/user/register',
      'client POST',
      'internal middleware - <anonymous>',
      'server POST /api/user',
    ]);
    // The gateway's span (its route: where the service's router is mounted) continues the browser's.
    const edge = spans.find((span) => span.kind === SpanKind.SERVER && span.name === 'POST /api/user')!;
    expect(edge.parentSpanContext?.spanId).toBe(browser.spanId);
    expect(edge.attributes['cliffhanger.caller.outside']).toBe(true);
    expect(spans.find((span) => span.kind === SpanKind.CLIENT && span.name === 'POST')!.attributes['url.full']).toBe(`${service.url}/api/user/register`);
    // The service's span continues the gateway's call: a service's caller decides, it is not from outside.
    const own = spans.find((span) => span.kind === SpanKind.SERVER && span.name === 'POST /api/user/register')!;
    expect(own.attributes).not.toHaveProperty('cliffhanger.caller.outside');
  }, 120_000);

  it('records no query string, token or media grant in any span (issue 26)', async () => {
    const internal = { INTERNAL_TOKEN: 'tracing-test-internal-token', DEMO: '0' };
    const modules = registry.modules.filter((module) => ['user', 'catalog', 'unlock', 'transcoder'].includes(module.name));
    const service = await startSite({ modules, env: { ...internal, TARGET: 'user,catalog,unlock,transcoder' } });
    sites.push(service);
    const urls = Object.fromEntries(['USER', 'CATALOG', 'UNLOCK', 'TRANSCODER'].map((name) => [`${name}_SERVICE_URL`, service.url]));
    const gateway = await startSite({ modules, env: { ...internal, ...urls, TARGET: 'gateway' } });
    sites.push(gateway);

    const secrets = ['sekrit-reset-token', 'sekrit-oauth-code', 'sekrit-grant-0123456789'];
    const browser = browserCall();
    const headers = { traceparent: browser.traceparent.replace(/-00$/, '-01') };
    await gateway.call('GET', `/api/user?token=${secrets[0]}&code=${secrets[1]}`, { headers });
    // A media segment is not traced at all, at the gateway or the service it goes on to.
    await (await fetch(`${gateway.url}/media/g/${secrets[2]}/episodes/e1/master.m3u8?token=${secrets[0]}`, { headers })).arrayBuffer();
    const spans = await eventually(() => {
      const found = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === browser.traceId);
      return found.some((span) => span.kind === SpanKind.SERVER && span.attributes['cliffhanger.caller.outside'] === undefined) ? found : null;
    }, 10_000, 'the spans of the call, at the gateway and the service');
    const recorded = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
    for (const secret of secrets) expect(recorded).not.toContain(secret);
    const recordedUrls = spans.flatMap((span) => [span.attributes['url.path'], span.attributes['url.full']]).filter((url) => url !== undefined).map(String);
    expect(recordedUrls).toEqual(expect.arrayContaining(['/api/user', `${service.url}/api/user`]));
    expect(recordedUrls.filter((url) => url.includes('?'))).toEqual([]);
    expect(spans.every((span) => span.attributes['url.query'] === undefined)).toBe(true);
  }, 120_000);

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
