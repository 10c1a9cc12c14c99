import * as Sentry from '@sentry/node';
import { SentryPropagator, SentrySampler, SentrySpanProcessor } from '@sentry/opentelemetry';
import type { TracingOptions } from './tracing.ts';

/** Of the traces the gateway starts, Sentry keeps (and OTLP receives) three in ten. */
const TRACES_SAMPLE_RATE = 0.3;

/** The environment an error or trace is filed under: a host name with ".cc" is the sandbox. */
const environmentOf = (hostname: string): 'sandbox' | 'production' => (hostname.includes('.cc') ? 'sandbox' : 'production');

// Sentry's own spans for incoming and outgoing HTTP would double the ones our HTTP kit makes.
const ownSpans = new Set(['Http', 'NodeFetch']);

/**
 * Starts Sentry (errors, uncaught exceptions, and traces through our tracer provider: its sampler,
 * span processor, context manager and headers). The environment comes from PUBLIC_URL's host, or,
 * without one, from the host each request came to.
 */
export function startSentry(dsn: string, publicUrl: string | undefined): Required<Pick<TracingOptions, 'sampler' | 'contextManager' | 'propagators'>> & { spanProcessor: SentrySpanProcessor } {
  const publicHost = publicUrl ? new URL(publicUrl).hostname : null;
  const byRequestHost = <E extends Sentry.Event>(event: E): E => {
    const host = requestHostOf(event);
    return host ? { ...event, environment: environmentOf(host) } : event;
  };
  const client = Sentry.init({
    dsn,
    environment: environmentOf(publicHost ?? ''),
    tracesSampleRate: TRACES_SAMPLE_RATE,
    skipOpenTelemetrySetup: true,
    // Its ESM hooks serve automatic instrumentation, which this process does not use.
    registerEsmLoaderHooks: false,
    defaultIntegrations: Sentry.getDefaultIntegrationsWithoutPerformance().filter((integration) => !ownSpans.has(integration.name)),
    // A rejection nobody handles still ends the process, as it does without Sentry (Node's default).
    integrations: [Sentry.onUnhandledRejectionIntegration({ mode: 'strict' })],
    // Last of all that prepares an event, when its request (set by `reportCrash`) is known.
    ...(!publicHost && { beforeSend: byRequestHost, beforeSendTransaction: byRequestHost }),
  });
  if (!client) throw new Error('Sentry did not start');
  if (!publicHost) {
    // The trace header of the envelope too, which Sentry samples and filters by.
    client.on('createDsc', (dsc, rootSpan) => {
      const host = rootSpan && Sentry.spanToJSON(rootSpan).data['server.address'];
      if (typeof host === 'string') dsc.environment = environmentOf(host);
    });
  }
  return {
    sampler: new SentrySampler(client),
    spanProcessor: new SentrySpanProcessor({ client }),
    contextManager: new Sentry.SentryContextManager(),
    propagators: [new SentryPropagator()],
  };
}

/** The host an event's request came to: an error's request URL, or a transaction's server span. */
function requestHostOf(event: Sentry.Event): string | null {
  if (event.request?.url && URL.canParse(event.request.url)) return new URL(event.request.url).hostname;
  const address = event.contexts?.trace?.data?.['server.address'];
  return typeof address === 'string' ? address : null;
}

export interface CrashedRequest {
  method: string;
  /** Scheme, host and path, never the query. */
  url: string;
  requestId: string;
}

/** Reports a request's crash (an answer of HTTP 500) to Sentry, when it runs. */
export function reportCrash(error: unknown, request: CrashedRequest): void {
  Sentry.withScope((scope) => {
    scope.setTag('request_id', request.requestId);
    scope.addEventProcessor((event) => ({ ...event, request: { ...event.request, method: request.method, url: request.url } }));
    Sentry.captureException(error);
  });
}

/** Sends what Sentry still holds (at shutdown); nothing when it does not run. */
export async function flushSentry(): Promise<void> {
  await Sentry.flush(2_000);
}
