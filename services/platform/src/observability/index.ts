import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { flushSentry, startSentry } from './sentry.ts';
import { flushTracing, installTracing, tracingInstalled } from './tracing.ts';

export { installTracing, type TracingOptions } from './tracing.ts';
export { traceTransactions } from './database.ts';

/** OTLP/HTTP's traces path, under the endpoint's own path (`http://collector:4318` → `/v1/traces`). */
const otlpTracesUrl = (endpoint: string) => new URL('v1/traces', endpoint.endsWith('/') ? endpoint : `${endpoint}/`).toString();

/**
 * Starts traces and error reports as config asks: spans exported by OTLP/HTTP with
 * OTEL_EXPORTER_OTLP_ENDPOINT, errors and sampled traces to Sentry with SENTRY_DSN, neither by
 * default. Both are global to the process: its first platform starts them, later ones share them.
 */
export function startObservability(config: Config, logger: Logger): void {
  if (tracingInstalled()) return;
  const sentry = config.SENTRY_DSN ? startSentry(config.SENTRY_DSN, config.PUBLIC_URL) : null;
  const otlp = config.OTEL_EXPORTER_OTLP_ENDPOINT ? new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpTracesUrl(config.OTEL_EXPORTER_OTLP_ENDPOINT) })) : null;
  // A collector that cannot be reached is said in the log, not swallowed.
  if (otlp) diag.setLogger({ error: (message) => logger.warn(`opentelemetry: ${message}`), warn: (message) => logger.warn(`opentelemetry: ${message}`), info() {}, debug() {}, verbose() {} }, DiagLogLevel.WARN);
  installTracing({
    serviceName: config.OTEL_SERVICE_NAME ?? `cliffhanger-${config.TARGET}`,
    spanProcessors: [...(sentry ? [sentry.spanProcessor] : []), ...(otlp ? [otlp] : [])],
    ...(sentry && { sampler: sentry.sampler, contextManager: sentry.contextManager, propagators: sentry.propagators }),
  });
}

/** Sends the spans and error reports still held, before the process exits. */
export async function flushObservability(): Promise<void> {
  await Promise.all([flushTracing(), flushSentry()]);
}
