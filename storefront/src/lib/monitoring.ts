import { trackEvent } from '../api/analytics';

// Error reporting and performance monitoring (spec section 9), sent through our own analytics pixel.
export const MONITORING = { traceSampleRate: 0.3 } as const;

export function monitoringEnvironment(hostname: string): 'sandbox' | 'production' {
  return hostname.includes('.cc') ? 'sandbox' : 'production';
}

export function installMonitoring(random: () => number = Math.random): void {
  const environment = monitoringEnvironment(window.location.hostname);
  window.addEventListener('error', (event) => {
    trackEvent('js_error', { environment, message: String(event.message).slice(0, 200), path: window.location.pathname });
  });
  window.addEventListener('unhandledrejection', (event) => {
    const reason = event.reason instanceof Error ? event.reason.message : String(event.reason);
    trackEvent('js_error', { environment, message: reason.slice(0, 200), path: window.location.pathname });
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
