import { afterEach, describe, expect, it, vi } from 'vitest';
import { MONITORING, monitoringEnvironment, sentryDsnOf, sentryOptions, startSentry } from './monitoring';

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
    expect(sentryOptions('https://key@o1.ingest.example.io/42', 'www.cliffhanger.com')).toMatchObject({ environment: 'production', tracePropagationTargets: [] });
    await startSentry('https://key@o1.ingest.example.io/42', 'shorts.example.cc');
    const Sentry = await import('@sentry/browser');
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
});
