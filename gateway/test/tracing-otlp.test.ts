import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';

interface OtlpSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

/** An OpenTelemetry collector's OTLP/HTTP endpoint, standing in: it keeps what it is sent. */
const received: { method: string; path: string; contentType: string; body: OtlpExport }[] = [];
const collector = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({ method: req.method!, path: req.url!, contentType: req.headers['content-type'] ?? '', body: JSON.parse(Buffer.concat(chunks).toString()) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

beforeAll(async () => {
  collector.listen(0, '127.0.0.1');
  await once(collector, 'listening');
});
afterAll(() => collector.close());

describe('traces exported by OTLP', () => {
  it('posts the spans of a request to OTEL_EXPORTER_OTLP_ENDPOINT, under the trace id the browser sent', async () => {
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/otlp`;
    const site = await startSite({ modules: registry.modules, env: { DEMO: '0', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const answer = await site.call('GET', '/api/user', { headers: { traceparent: `00-${traceId}-1122334455667788-00` } });
    expect(answer.code).toBe(200);
    // Spans leave in batches; stopping sends what is held.
    await site.close();

    const exports = received.filter((request) => request.method === 'POST' && request.path === '/otlp/v1/traces');
    expect(exports.length).toBeGreaterThan(0);
    expect(exports[0]!.contentType).toContain('application/json');
    const resources = exports.flatMap((request) => request.body.resourceSpans);
    const serviceNames = resources.map((resource) => resource.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue);
    expect(new Set(serviceNames)).toEqual(new Set(['cliffhanger-all']));
    const spans = resources.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    expect(spans.find((span) => span.name === 'GET /api/user')).toMatchObject({ traceId, parentSpanId: '1122334455667788' });
  });
});
