import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { continuing, failed, injectTraceHeaders, startSpan, tracedPath } from '../observability/tracing.ts';

// Incoming requests and calls made with node:http (the gateway's forwarding) are traced by
// OpenTelemetry's HTTP instrumentation (observability/instrument.ts); what is left here is fetch's.

/** A call to another service, in a client span of the trace in progress. */
export interface OutgoingCall {
  /** The trace headers the call carries (`traceparent`, and Sentry's when it runs). */
  headers: Record<string, string>;
  end(outcome: { status: number } | { error: unknown }): void;
}

/**
 * Opens the client span of a call made with fetch (undici, which no instrumentation here covers)
 * to `url` (its query and any grant left out); none outside a trace: background work starts none.
 */
export function traceOutgoingCall(method: string, url: URL): OutgoingCall | null {
  const parent = continuing(null);
  if (!parent) return null;
  const span = startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        'url.full': url.origin + tracedPath(url.pathname),
      },
    },
    parent,
  );
  const headers: Record<string, string> = {};
  injectTraceHeaders(trace.setSpan(parent, span), headers);
  let ended = false;
  return {
    headers,
    end(outcome) {
      if (ended) return;
      ended = true;
      if ('error' in outcome) failed(span, outcome.error);
      else {
        span.setAttribute('http.response.status_code', outcome.status);
        if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
