import * as Sentry from '@sentry/browser';
import { afterEach, describe, expect, it } from 'vitest';
import { sentryOptions } from './sentry';

const RESET = 'Zq3cV8hK2mN5pR7tW9yB1dF4gJ6kL0xA_sE-uI3oP8q';
const CODE = 'oauthCode-0123456789abcdefghijklmnopqrstuvw';

afterEach(async () => {
  await Sentry.close(0);
  window.history.replaceState(null, '', '/');
});

/** Sentry with our options, every trace kept, sending to a transport that keeps what it would have sent. */
function startRecording(): string[] {
  const sent: string[] = [];
  Sentry.init({
    ...sentryOptions('https://key@o1.ingest.example.io/42', 'www.cliffhanger.com'),
    tracesSampleRate: 1,
    transport: () => ({
      send: async (envelope) => {
        sent.push(JSON.stringify(envelope));
        return {};
      },
      flush: async () => true,
    }),
  });
  return sent;
}

describe('Sentry', () => {
  it('receives no secret of an address: not the page’s, a breadcrumb’s, a message’s or a span’s', async () => {
    const sent = startRecording();
    window.history.replaceState(null, '', `/login?oauth=${CODE}&redirect=%2Fmy`);
    Sentry.addBreadcrumb({ category: 'navigation', data: { from: `/retrievePassword?reset=${RESET}`, to: '/login' } });
    Sentry.addBreadcrumb({ category: 'fetch', data: { url: `/api/user/oauth/google/callback?code=${CODE}&state=${RESET}`, method: 'GET' } });
    Sentry.captureException(new Error(`could not open /retrievePassword?reset=${RESET}`));
    Sentry.startSpan({ name: 'pageload', op: 'pageload' }, () => {
      Sentry.startSpan({ name: 'GET /api/x', op: 'http.client', attributes: { 'http.url': `https://www.cliffhanger.com/api/x?token=${RESET}`, 'http.query': `?code=${CODE}` } }, () => undefined);
    });
    await Sentry.flush(2000);

    const everything = sent.join('\n');
    expect(everything).toContain('could not open /retrievePassword?reset=[Filtered]');
    expect(everything).toContain('/login?redirect=%2Fmy');
    expect(everything).toContain('/api/user/oauth/google/callback');
    expect(everything).toContain('https://www.cliffhanger.com/api/x');
    expect(everything).not.toContain(RESET);
    expect(everything).not.toContain(CODE);
  });
});
