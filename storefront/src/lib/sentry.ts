import * as Sentry from '@sentry/browser';
import { MONITORING, monitoringEnvironment } from './monitoring';

// Sentry with our settings (lib/monitoring.ts, MONITORING): a chunk of its own, which monitoring.ts
// imports only on a site with a DSN.

export function sentryOptions(dsn: string, hostname: string): Sentry.BrowserOptions {
  return {
    dsn,
    environment: monitoringEnvironment(hostname),
    tracesSampleRate: MONITORING.traceSampleRate,
    replaysSessionSampleRate: MONITORING.replaysSessionSampleRate,
    replaysOnErrorSampleRate: MONITORING.replaysOnErrorSampleRate,
    // API calls carry a traceparent of their own (api/client.ts): the one trace the server continues.
    tracePropagationTargets: [],
  };
}

/** Starts Sentry with tracing and replay; resolves with it, started. */
export function startSentry(dsn: string, hostname: string): typeof Sentry {
  Sentry.init({ ...sentryOptions(dsn, hostname), integrations: [Sentry.browserTracingIntegration(), Sentry.replayIntegration()] });
  return Sentry;
}
