import { context, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { continuing, extractTraceHeaders, failed, fromOutside, injectTraceHeaders, startSpan } from '../observability/tracing.ts';

/**
 * Runs each request in a server span, child of its caller's trace context: a browser's `traceparent`
 * (the gateway), whose trace id the whole trace keeps, or the gateway's or another service's (a
 * service running apart).
 */
export function traceRequests(caller: 'browser' | 'service') {
  return (req: Request, res: Response, next: NextFunction) => {
    const extracted = extractTraceHeaders(req.headers);
    const parent = caller === 'browser' ? fromOutside(extracted) : extracted;
    const attributes: Attributes = { 'http.request.method': req.method, 'url.path': req.originalUrl.split('?')[0], 'url.scheme': req.protocol };
    if (req.hostname) attributes['server.address'] = req.hostname;
    const span = startSpan(req.method, { kind: SpanKind.SERVER, attributes }, parent);
    const active = trace.setSpan(parent, span);
    res.once('close', () => {
      // The matched route, not the path: span names stay few (`POST /api/user/register`). A route
      // of several paths does not say which one matched.
      const route = typeof req.route?.path === 'string' ? req.route.path : null;
      if (route) {
        span.setAttribute('http.route', route);
        span.updateName(`${req.method} ${route}`);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      else if (!res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: 'closed before the answer was sent' });
      span.end();
    });
    context.with(active, next);
  };
}

/** A call to another service, in a client span of the trace in progress. */
export interface OutgoingCall {
  /** The trace headers the call carries (`traceparent`, and Sentry's when it runs). */
  headers: Record<string, string>;
  end(outcome: { status: number } | { error: unknown }): void;
}

/** Opens the client span of a call to `url` (its query, which may hold a token, left out); none outside a trace: background work starts none. */
export function traceOutgoingCall(method: string, url: URL): OutgoingCall | null {
  const parent = continuing(null);
  if (!parent) return null;
  const span = startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': method, 'server.address': url.hostname, 'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80), 'url.full': url.origin + url.pathname },
    },
    parent,
  );
  const headers: Record<string, string> = {};
  injectTraceHeaders(trace.setSpan(parent, span), headers);
  let ended = false;
  return {
    headers,
    end(outcome) {
      // A forwarded answer may break off after it closed: the first outcome is the call's.
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
