import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepUserToken } from './attribution';
import { usePageViews } from './usePageViews';

function Shell({ name }: { name: string }) {
  usePageViews();
  return <p>{name}</p>;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// One test: the pixels load once per page, and this file is that page.
describe('page views', () => {
  it('load the configured pixels once and report every route change to them and to our pixel', async () => {
    keepUserToken('user-token-1');
    const hits: string[] = [];
    let answerReports: (items: unknown) => void = () => undefined;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const parsed = new URL(url, 'http://localhost');
        if (parsed.pathname === '/api/statics.png') {
          if (parsed.searchParams.get('event') === 'page_view') hits.push(parsed.searchParams.get('path')!);
          return new Response(null);
        }
        const data = parsed.pathname === '/api/reports' ? await new Promise((resolve) => (answerReports = resolve)) : null;
        return new Response(JSON.stringify({ code: 200, message: 'ok', data }), { headers: { 'content-type': 'application/json' } });
      }),
    );
    const router = createMemoryRouter(
      [
        { path: '/', element: <Shell name="home" /> },
        { path: '/shopping', element: <Shell name="shop" /> },
      ],
      { initialEntries: ['/'] },
    );
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    await screen.findByText('home');
    await vi.waitFor(() => expect(hits).toEqual(['/']));
    expect(window.fbq).toBeUndefined();

    // The ids arrive after the first page view: it waits for them, and goes after `init`.
    await act(async () => answerReports([
      { config_key: 'facebook_pixel_id', config_value: '1234567890' },
      { config_key: 'tiktok_pixel', config_value: 'CTT42' },
    ]));
    await vi.waitFor(() => expect(window.fbq).toBeDefined());
    await act(() => router.navigate('/shopping'));
    await screen.findByText('shop');

    expect(hits).toEqual(['/', '/shopping']);
    expect(document.head.querySelectorAll('script')).toHaveLength(2);
    expect((window.fbq!.queue as ArrayLike<unknown>[]).map((entry) => Array.from(entry))).toEqual([
      ['init', '1234567890'],
      ['track', 'PageView'],
      ['track', 'PageView'],
    ]);
    expect([...window.ttq!]).toEqual([['page'], ['page']]);
  });
});
