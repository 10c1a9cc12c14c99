// What both sides of monitoring read: our own pixel's error and page-load reports (lib/monitoring.ts) and
// Sentry (lib/sentry.ts, a chunk of its own that monitoring.ts loads): three traces in ten, a session
// replay in ten, and a replay of one session in ten that meets an error (spec section 9).
export const MONITORING = { traceSampleRate: 0.3, replaysSessionSampleRate: 0.1, replaysOnErrorSampleRate: 0.1 } as const;

export function monitoringEnvironment(hostname: string): 'sandbox' | 'production' {
  return hostname.includes('.cc') ? 'sandbox' : 'production';
}
