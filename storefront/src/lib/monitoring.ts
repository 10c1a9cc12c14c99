import { trackEvent } from '../api/analytics';
import { MONITORING, monitoringEnvironment } from './monitoringSettings';
import { scrubText } from './sensitiveUrl';

// Error reporting and performance monitoring (spec section 9), sent through our own analytics pixel,
// and to Sentry where the site has a DSN (lib/sentry.ts), with the settings both read (lib/monitoringSettings.ts).

/** An error's message as our analytics receives it: short, and without a secret of an address in it. */
const reportedMessage = (message: string) => scrubText(message).slice(0, 200);

/** The Sentry DSN the gateway writes into the page (`<meta name="sentry-dsn">`) when SENTRY_DSN is set. */
export function sentryDsnOf(page: Document): string | null {
  return page.querySelector<HTMLMetaElement>('meta[name="sentry-dsn"]')?.content || null;
}

type SentryModule = typeof import('@sentry/browser');
/** Sentry once it has started (lib/sentry.ts, a chunk of its own); null without a DSN or when it could not load. */
let sentry: Promise<SentryModule | null> | null = null;

/** How many errors React recovered from on this page: hydration mismatches, above all. */
let recoverableErrors = 0;
export const recoverableErrorCount = () => recoverableErrors;

/**
 * React's `onRecoverableError` (main.tsx): an error React recovered from by rendering on the client
 * what the server had rendered, a hydration mismatch above all. The page still works, so nothing
 * throws; but each one is a defect: it is counted, logged, sent to our analytics (`js_error`, kind
 * "recoverable") and to Sentry where the site has it, with the component stack.
 */
export function reportRecoverableError(error: unknown, info: { componentStack?: string }): void {
  recoverableErrors += 1;
  const message = error instanceof Error ? error.message : String(error);
  console.error('React recovered from an error', error, info.componentStack ?? '');
  trackEvent('js_error', { environment: monitoringEnvironment(window.location.hostname), kind: 'recoverable', message: reportedMessage(message), path: window.location.pathname });
  void sentry?.then((Sentry) => Sentry?.captureException(error, { tags: { recoverable: 'true' }, contexts: { react: { componentStack: info.componentStack ?? '' } } }));
}

export function installMonitoring(random: () => number = Math.random): void {
  const environment = monitoringEnvironment(window.location.hostname);
  const dsn = sentryDsnOf(document);
  // Loaded on demand, so a site without a DSN never downloads it; monitoring that cannot load (a
  // blocked script, an offline moment) breaks nothing.
  if (dsn) {
    sentry = import('./sentry').then(
      ({ startSentry }) => startSentry(dsn, window.location.hostname),
      () => null,
    );
  }
  window.addEventListener('error', (event) => {
    trackEvent('js_error', { environment, message: reportedMessage(String(event.message)), path: window.location.pathname });
  });
  window.addEventListener('unhandledrejection', (event) => {
    const reason = event.reason instanceof Error ? event.reason.message : String(event.reason);
    trackEvent('js_error', { environment, message: reportedMessage(reason), path: window.location.pathname });
  });
  if (random() < MONITORING.traceSampleRate) {
    window.addEventListener('load', () => {
      const [timing] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      if (!timing) return;
      trackEvent('page_load', {
        environment,
        ttfb: Math.round(timing.responseStart),
        domReady: Math.round(timing.domContentLoadedEventEnd),
        load: Math.round(timing.loadEventEnd || performance.now()),
      });
    });
  }
}
