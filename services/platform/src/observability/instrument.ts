import type { RequestOptions } from 'node:http';
import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { INTERNAL_TOKEN_HEADER } from '../http/internal-http.ts';
import { CALLER_OUTSIDE_ATTRIBUTE, tracedPath } from './tracing.ts';

/**
 * OpenTelemetry's instrumentations of node:http, express, pg, ioredis and kafkajs, which make the
 * spans of incoming and outgoing HTTP, routes, queries, Redis commands and Kafka sends and receipts.
 * They patch a library as it loads, so this module is imported before anything imports one: first
 * thing in an entry point (`import '@cliffhanger/platform/instrument'`, then a dynamic import of the
 * rest), and in a test file before its dynamic imports. Our sources are ESM run by tsx, and an ESM
 * `import` of a CommonJS package does not go through `require`, where the instrumentations hook by
 * default: import-in-the-middle's loader (registered here with node:module's `register`) wraps the
 * modules they ask for, and only those (the message channel tells the loader which). The spans go
 * to the tracer provider installed later (`installTracing`): until then, and with no processor, none is recorded.
 */
const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

// Probes, metrics and media segments are not traced: many, cheap, and no caller's trace.
const untraced = /^\/(healthz|readyz|livez|metrics)(\/|$|\?)|^\/media\/|^\/assets\//;

registerInstrumentations({
  instrumentations: [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => untraced.test(request.url ?? ''),
      // Outgoing calls start no trace: background work (a relay, a mail) makes no spans of its own.
      requireParentforOutgoingSpans: true,
      // A browser's traceparent gives the trace id, never the decision to record (tracing.ts, ParentDecides).
      // A query (a sign-in's code and state, a reset token) and a media grant are never recorded (issue 26):
      // the path without them replaces the instrumentation's `url.path`, and `url.query` is left out.
      startIncomingSpanHook: (request) => ({
        'url.path': tracedPath(request.url ?? '/'),
        'url.query': undefined,
        ...(request.headers[INTERNAL_TOKEN_HEADER] === undefined && { [CALLER_OUTSIDE_ATTRIBUTE]: true }),
      }),
      startOutgoingSpanHook: (request) => ({ 'url.full': outgoingUrl(request) }),
    }),
    // The gateway's hand-over of a call to its module's routes (compose.ts, `moduleRoutes`) is no step
    // of its own: without a span, the route's handler stays the request's child.
    new ExpressInstrumentation({ ignoreLayers: ['middleware - moduleRoutes'] }),
    new PgInstrumentation({ requireParentSpan: true }),
    // The command's name only: its keys and arguments hold sessions, tokens and client addresses.
    new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    new KafkaJsInstrumentation(),
  ],
});
await waitForAllMessagesAcknowledged();

/** An outgoing call's URL as its span records it: no query, no grant. */
function outgoingUrl(request: RequestOptions): string {
  const protocol = request.protocol ?? 'http:';
  const host = request.hostname ?? request.host ?? 'localhost';
  const port = request.port && !(protocol === 'http:' && Number(request.port) === 80) && !(protocol === 'https:' && Number(request.port) === 443) ? `:${request.port}` : '';
  return `${protocol}//${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}${port}${tracedPath(request.path ?? '/')}`;
}
