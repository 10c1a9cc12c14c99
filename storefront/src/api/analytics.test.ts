import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepAttribution, keepUserId, keepUserToken } from '../lib/attribution';
import { EVENT_DEFAULTS, staticsQuery, trackEvent } from './analytics';

beforeEach(() => localStorage.clear());

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('analytics events', () => {
  it('default to currency USD and value 0', () => {
    expect(EVENT_DEFAULTS).toEqual({ currency: 'USD', value: 0 });
    const query = staticsQuery('page_view');
    expect(query.get('event')).toBe('page_view');
    expect(query.get('currency')).toBe('USD');
    expect(query.get('value')).toBe('0');
  });

  it('keep an event’s own value and currency, and carry who and where from', () => {
    keepAttribution('?token=ref-1&fbclid=fb-1&ttclid=tt-1');
    keepUserId('u-42');
    const query = staticsQuery('purchase', { value: 499, currency: 'EUR', orderId: 'o1' });
    expect(Object.fromEntries(query)).toEqual({
      event: 'purchase',
      currency: 'EUR',
      value: '499',
      orderId: 'o1',
      userId: 'u-42',
      token: 'ref-1',
      fbclid: 'fb-1',
      ttclid: 'tt-1',
    });
  });

  it('are sent as a GET of statics.png that carries the user token, and outlive the page', () => {
    keepUserToken('user-token-3');
    keepAttribution('?token=ref-1&fbclid=fb-1');
    const fetch = vi.fn(async () => new Response(null));
    vi.stubGlobal('fetch', fetch);

    trackEvent('video_view', { videoId: 'v1', episodeId: 'e1' });

    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    const hit = new URL(url, 'http://localhost');
    expect(hit.pathname).toBe('/api/statics.png');
    expect(Object.fromEntries(hit.searchParams)).toMatchObject({ event: 'video_view', videoId: 'v1', episodeId: 'e1' });
    expect(init.method ?? 'GET').toBe('GET');
    expect(init.keepalive).toBe(true);
    expect(init.headers).toEqual({ 'x-user-token': 'user-token-3', 'x-referrer-token': 'ref-1', 'x-fbclid': 'fb-1' });
  });

  it('never throw, whether the hit fails on the way or cannot even be sent', async () => {
    const rejected = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    vi.stubGlobal('fetch', rejected);
    expect(() => trackEvent('page_view')).not.toThrow();
    await Promise.resolve();
    expect(rejected).toHaveBeenCalledTimes(1);

    vi.stubGlobal('fetch', () => {
      throw new TypeError('keepalive quota exceeded');
    });
    expect(() => trackEvent('page_view')).not.toThrow();
  });
});
