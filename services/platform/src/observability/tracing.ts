import {
  context,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type ContextManager,
  type Link,
  type Span,
  type SpanKind,
  type SpanOptions,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  SamplingDecision,
  type Sampler,
  type SamplingResult,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/**
 * Traces (OpenTelemetry). OpenTelemetry's instrumentations (instrument.ts, loaded first by every
 * entry point) make the spans of HTTP in and out, express's routes, pg's queries, Redis commands and
 * Kafka; these helpers make the rest: calls by fetch, PGlite's transactions, the outbox's `publish`
 * and the consumers' `process`. Only a request starts a trace; the database, the outbox and
 * consumers continue one, so background work (polls, relays, jobs) makes no spans of its own.
 */
const w3c = new W3CTraceContextPropagator();
const tracer = () => trace.getTracer('cliffhanger');

export interface TracingOptions {
  serviceName: string;
  /** Where finished spans go (the OTLP exporter, Sentry's processor, a test's memory); none records nothing. */
  spanProcessors: SpanProcessor[];
  /**
   * Whether a trace is recorded, where it starts (a span continuing one follows its parent): by
   * default all are when something receives spans.
   */
  sampler?: Sampler;
  contextManager?: ContextManager;
  /** Read and written beside W3C `traceparent` (Sentry's headers, which carry its sampling decision). */
  propagators?: TextMapPropagator[];
}

let provider: BasicTracerProvider | null = null;

export const tracingInstalled = () => provider !== null;

/**
 * Installs the process's tracer provider, context manager and propagators: OpenTelemetry's are
 * global, so the first call of a process decides, and later calls change nothing. Even with no
 * processor, spans (unrecorded) carry trace ids from the browser's `traceparent` to logs and events.
 */
export function installTracing(options: TracingOptions): void {
  if (provider) return;
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    sampler: new ParentDecides(options.sampler ?? (options.spanProcessors.length > 0 ? new AlwaysOnSampler() : new AlwaysOffSampler())),
    spanProcessors: options.spanProcessors,
  });
  context.setGlobalContextManager((options.contextManager ?? new AsyncLocalStorageContextManager()).enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [w3c, ...(options.propagators ?? [])] }));
  trace.setGlobalTracerProvider(provider);
}

const CALLER_OUTSIDE = createContextKey('cliffhanger.caller-outside');

/**
 * Marks a context whose remote parent is a browser's: the storefront records no spans, so its
 * `traceparent` gives the trace id and parent, never the decision to record.
 */
export const fromOutside = (parent: Context): Context => parent.setValue(CALLER_OUTSIDE, true);

/** The same mark as an attribute of an incoming span, which the HTTP instrumentation sets (instrument.ts). */
export const CALLER_OUTSIDE_ATTRIBUTE = 'cliffhanger.caller.outside';

/**
 * A URL's path as a span records it (issue 26): without its query, which may hold a sign-in's code
 * and state or a token, and with a media grant (`/media/g/<grant>/…`) replaced by `:grant`.
 */
export function tracedPath(url: string): string {
  const path = url.split(/[?#]/, 1)[0] || '/';
  return path.replace(/\/media\/g\/[^/]+/, '/media/g/:grant');
}

/**
 * A trace is recorded or not as a whole: a span whose parent (in this process, another service, or
 * the outbox) was not recorded is not either, whatever `first` would say. `first` decides where a
 * trace starts: no parent, or a browser's. Sentry's sampler alone would draw again for every
 * unrecorded W3C parent, the outbox's included.
 */
class ParentDecides implements Sampler {
  constructor(private readonly first: Sampler) {}

  shouldSample(parent: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    const spanContext = trace.getSpanContext(parent);
    const outside = parent.getValue(CALLER_OUTSIDE) === true || attributes[CALLER_OUTSIDE_ATTRIBUTE] === true;
    const decided = spanContext && trace.isSpanContextValid(spanContext) && !(spanContext.isRemote && outside);
    if (decided && !(spanContext.traceFlags & TraceFlags.SAMPLED)) return { decision: SamplingDecision.NOT_RECORD };
    // A Kafka message written outside any trace (background work) starts none where it is received.
    if (!decided && attributes['messaging.system'] === 'kafka') return { decision: SamplingDecision.NOT_RECORD };
    return this.first.shouldSample(parent, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `ParentDecides{${this.first.toString()}}`;
  }
}

/** Sends the spans that have ended and not left yet (at shutdown). */
export async function flushTracing(): Promise<void> {
  await provider?.forceFlush();
}

/** The W3C `traceparent` of a span. */
export function traceparentOf(span: Span): string | undefined {
  const carrier: Record<string, string> = {};
  w3c.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

/** The `traceparent` of the active span, if any. */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  return span ? traceparentOf(span) : undefined;
}

/** A context whose parent is the span a `traceparent` names (remote: another process, or the outbox). */
export function remoteContext(traceparent: string): Context {
  return w3c.extract(context.active(), { traceparent }, defaultTextMapGetter);
}

/** The active context when a span is active, else the one `traceparent` names, else none: nothing to continue. */
export function continuing(traceparent: string | null | undefined): Context | null {
  if (trace.getActiveSpan()) return context.active();
  return traceparent ? remoteContext(traceparent) : null;
}

/**
 * Runs `work` in a span child of `parent` (ended when `work` settles, marked failed when it throws);
 * with no parent, runs it untraced.
 */
export function inSpan<T>(name: string, options: SpanOptions, parent: Context | null, work: (span: Span | null) => Promise<T>): Promise<T> {
  if (!parent) return work(null);
  return tracer().startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends (an HTTP exchange, whose end is an event), child of `parent`. */
export function startSpan(name: string, options: SpanOptions, parent: Context): Span {
  return tracer().startSpan(name, options, parent);
}

export function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Writes the trace context of `parent` into outgoing headers: W3C `traceparent`, and Sentry's when it runs. */
export function injectTraceHeaders(parent: Context, headers: Record<string, string | string[] | number | undefined>): void {
  propagation.inject(parent, headers, defaultTextMapSetter);
}

/** The caller's trace context from incoming headers, on top of the active context. */
export function extractTraceHeaders(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(context.active(), headers, defaultTextMapGetter);
}

/** `trace_id` and `span_id` of the active span, for log lines. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return trace.isSpanContextValid(span.spanContext()) ? { trace_id: traceId, span_id: spanId } : {};
}
