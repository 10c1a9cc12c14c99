import { afterEach, describe, expect, it, vi } from 'vitest';
import { recoverableErrorCount, reportRecoverableError, sentryDsnOf } from './monitoring';
import { MONITORING, monitoringEnvironment } from './monitoringSettings';
import { sentryOptions, startSentry } from './sentry';

const tracked = vi.hoisted(() => [] as Array<{ event: string; params?: Record<string, unknown> }>);
vi.mock('../api/analytics', async (original) => ({
  ...(await original<typeof import('../api/analytics')>()),
  trackEvent: (event: string, params?: Record<string, unknown>) => void tracked.push({ event, params }),
}));

afterEach(() => vi.restoreAllMocks());

describe('error reporting and performance monitoring', () => {
  it('reports to the sandbox environment on .cc hosts and to production elsewhere', () => {
    expect(monitoringEnvironment('shorts.example.cc')).toBe('sandbox');
    expect(monitoringEnvironment('www.cliffhanger.cc.example.com')).toBe('sandbox');
    expect(monitoringEnvironment('www.cliffhanger.com')).toBe('production');
  });

  it('traces three page loads in ten', () => {
    expect(MONITORING.traceSampleRate).toBe(0.3);
  });

  it('reads the Sentry DSN the gateway wrote into the page, and none where it wrote none', () => {
    const page = document.implementation.createHTMLDocument();
    expect(sentryDsnOf(page)).toBeNull();
    page.head.insertAdjacentHTML('beforeend', '<meta name="sentry-dsn" content="https://key@o1.ingest.example.io/42">');
    expect(sentryDsnOf(page)).toBe('https://key@o1.ingest.example.io/42');
  });

  it('starts Sentry with three traces in ten, a session replay in ten, one in ten of sessions with an error, and the environment of the host', async () => {
    expect(sentryOptions('https://key@o1.ingest.example.io/42', 'www.cliffhanger.com')).toMatchObject({ environment: 'production', tracePropagationTargets: [/^\//, location.origin] });
    const Sentry = startSentry('https://key@o1.ingest.example.io/42', 'shorts.example.cc');
    const client = Sentry.getClient()!;
    expect(client.getOptions()).toMatchObject({
      dsn: 'https://key@o1.ingest.example.io/42',
      environment: 'sandbox',
      tracesSampleRate: 0.3,
      replaysSessionSampleRate: 0.1,
      replaysOnErrorSampleRate: 0.1,
    });
    expect(client.getIntegrationByName('Replay')).toBeDefined();
    expect(client.getIntegrationByName('BrowserTracing')).toBeDefined();
    await Sentry.close(0);
  });

  it('counts, logs and reports to our analytics each error React recovers from (a hydration mismatch)', () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const before = recoverableErrorCount();
    reportRecoverableError(new Error('Hydration failed because the server rendered text didn’t match the client.'), { componentStack: '\n    at Header' });
    expect(recoverableErrorCount()).toBe(before + 1);
    expect(logged).toHaveBeenCalledWith('React recovered from an error', expect.any(Error), '\n    at Header');
    expect(tracked.at(-1)).toEqual({
      event: 'js_error',
      params: { environment: 'production', kind: 'recoverable', message: 'Hydration failed because the server rendered text didn’t match the client.', path: '/' },
    });
  });
});
