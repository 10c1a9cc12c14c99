import { act, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithApp } from '../testing/renderWithApp';
import { keepUserToken } from './attribution';
import { usePageViews } from './usePageViews';

function Shell({ name }: { name: string }) {
  usePageViews();
  return <p>{name}</p>;
}

// One test: the pixels load once per page, and this file is that page.
describe('page views', () => {
  it('load the configured pixels once and report every route change to them and to our pixel', async () => {
    keepUserToken('user-token-1');
    let answerReports: (items: unknown) => void = () => undefined;
    const { api, router } = renderWithApp(
      [
        { path: '/', element: <Shell name="home" /> },
        { path: '/shopping', element: <Shell name="shop" /> },
      ],
      {
        answers: {
          '/api/statics.png': { status: 200, body: null },
          '/api/reports': () => new Promise((resolve) => (answerReports = (items) => resolve({ data: items }))),
        },
      },
    );
    /** Our pixel's hits of a page: the landing and every page view after it. */
    const hits = () =>
      api!.callsTo('GET', '/api/statics.png').flatMap(({ query }) => (['landing', 'page_view'].includes(query.get('event')!) ? [`${query.get('event')} ${query.get('path')}`] : []));
    await screen.findByText('home');
    await vi.waitFor(() => expect(hits()).toEqual(['landing /']));
    expect(window.fbq).toBeUndefined();

    // The ids arrive after the first page view: it waits for them, and goes after `init`.
    await act(async () => answerReports([
      { config_key: 'facebook_pixel_id', config_value: '1234567890' },
      { config_key: 'tiktok_pixel', config_value: 'CTT42' },
    ]));
    await vi.waitFor(() => expect(window.fbq).toBeDefined());
    await act(() => router.navigate('/shopping'));
    await screen.findByText('shop');

    // The first page of the visit is its landing.
    expect(hits()).toEqual(['landing /', 'page_view /shopping']);
    expect(document.head.querySelectorAll('script')).toHaveLength(2);
    expect((window.fbq!.queue as ArrayLike<unknown>[]).map((entry) => Array.from(entry))).toEqual([
      ['init', '1234567890'],
      ['track', 'PageView'],
      ['track', 'PageView'],
    ]);
    expect([...window.ttq!]).toEqual([['page'], ['page']]);
  });
});
