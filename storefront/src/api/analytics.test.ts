import { beforeEach, describe, expect, it } from 'vitest';
import { keepAttribution, keepUserId } from '../lib/attribution';
import { EVENT_DEFAULTS, staticsQuery } from './analytics';

beforeEach(() => localStorage.clear());

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
});
