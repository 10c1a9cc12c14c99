import * as Sentry from '@sentry/browser';
import { MONITORING, monitoringEnvironment } from './monitoringSettings';
import { scrubText, scrubUrl } from './sensitiveUrl';

// Sentry with our settings (lib/monitoringSettings.ts, MONITORING): a chunk of its own, which monitoring.ts
// imports only on a site with a DSN.

// Where Sentry's instrumentation (page, fetch, XHR, navigation) puts an address: breadcrumbs' and spans' data.
const ADDRESS_FIELDS = ['url', 'http.url', 'url.full', 'http.query', 'http.fragment', 'from', 'to'];

function scrubAddresses(data: Record<string, unknown> | undefined): void {
  for (const field of ADDRESS_FIELDS) if (typeof data?.[field] === 'string') data[field] = scrubUrl(data[field]);
}

/** A breadcrumb without the secrets of the addresses it holds. */
function scrubBreadcrumb(breadcrumb: Sentry.Breadcrumb): Sentry.Breadcrumb {
  if (breadcrumb.message) breadcrumb.message = scrubText(breadcrumb.message);
  scrubAddresses(breadcrumb.data);
  return breadcrumb;
}

/**
 * An event (an error or a transaction) without the secrets of any address in it: the page's, its
 * Referer, its messages, its breadcrumbs and spans. boot.ts took the landing secrets out of the address
 * before Sentry started; this is for any that reach it otherwise.
 */
function scrubEvent<E extends Sentry.Event>(event: E): E {
  const { request } = event;
  if (request) {
    if (request.url) request.url = scrubUrl(request.url);
    delete request.query_string;
    if (request.headers?.Referer) request.headers.Referer = scrubUrl(request.headers.Referer);
  }
  if (event.message) event.message = scrubText(event.message);
  if (event.transaction) event.transaction = scrubUrl(event.transaction);
  for (const exception of event.exception?.values ?? []) if (exception.value) exception.value = scrubText(exception.value);
  event.breadcrumbs?.forEach(scrubBreadcrumb);
  event.spans?.forEach((span) => scrubAddresses(span.data));
  scrubAddresses(event.contexts?.trace?.data);
  return event;
}

export function sentryOptions(dsn: string, hostname: string): Sentry.BrowserOptions {
  return {
    dsn,
    environment: monitoringEnvironment(hostname),
    tracesSampleRate: MONITORING.traceSampleRate,
    replaysSessionSampleRate: MONITORING.replaysSessionSampleRate,
    replaysOnErrorSampleRate: MONITORING.replaysOnErrorSampleRate,
    // The page load's or navigation's trace goes to the site's own calls (`sentry-trace`, `baggage`),
    // which the gateway continues over the call's own traceparent (api/client.ts): one trace from the
    // page load to the consumers of its events. Other origins (Stripe, the ad pixels) get nothing.
    tracePropagationTargets: [/^\//, ...(typeof location === 'undefined' ? [] : [location.origin])],
    beforeSend: scrubEvent,
    beforeSendTransaction: scrubEvent,
    beforeBreadcrumb: scrubBreadcrumb,
  };
}

/** Starts Sentry with tracing and replay; resolves with it, started. */
export function startSentry(dsn: string, hostname: string): typeof Sentry {
  Sentry.init({ ...sentryOptions(dsn, hostname), integrations: [Sentry.browserTracingIntegration(), Sentry.replayIntegration()] });
  return Sentry;
}
