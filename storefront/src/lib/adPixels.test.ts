import { beforeEach, describe, expect, it, vi } from 'vitest';

/** A fresh module per test: the pixels load once per page, and each test is a new page. */
async function freshPixels() {
  vi.resetModules();
  return import('./adPixels');
}

const ALL = [
  { config_key: 'facebook_pixel_id', config_value: '1234567890' },
  { config_key: 'google_analytics', config_value: 'G-ABC123' },
  { config_key: 'tiktok_pixel', config_value: 'CTT42' },
  { config_key: 'bigo_pixel', config_value: 'bigo-7' },
];

const scripts = () => [...document.head.querySelectorAll('script')].map((script) => script.src);
/** A queue's entries as plain arrays (the snippets keep arguments objects). */
const entries = (queue: unknown[] | undefined) => (queue ?? []).map((entry) => Array.from(entry as ArrayLike<unknown>));

beforeEach(() => {
  document.head.innerHTML = '';
  for (const name of ['fbq', '_fbq', 'dataLayer', 'gtag', 'TiktokAnalyticsObject', 'ttq', 'bgdataLayer', 'bge'] as const) delete window[name];
});

describe('the ad pixels', () => {
  it('load each configured vendor’s script once, from the vendor’s own address', async () => {
    const { loadPixels } = await freshPixels();
    loadPixels(ALL);
    loadPixels(ALL);
    expect(scripts()).toEqual([
      'https://connect.facebook.net/en_US/fbevents.js',
      'https://www.googletagmanager.com/gtag/js?id=G-ABC123',
      'https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=CTT42&lib=ttq',
      'https://api.imotech.video/ad/events.js?pixel_id=bigo-7',
    ]);
    expect([...document.head.querySelectorAll('script')].every((script) => script.async)).toBe(true);
  });

  it('load nothing when nothing is configured, and track nothing', async () => {
    const { loadPixels, trackPixels } = await freshPixels();
    loadPixels([]);
    trackPixels('page_view', { path: '/', url: 'https://cliffhanger.example/' });
    expect(scripts()).toEqual([]);
    expect([window.fbq, window.gtag, window.ttq, window.bge]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('skip an id that is not a plain id, and keys they do not know', async () => {
    const { loadPixels } = await freshPixels();
    loadPixels([
      { config_key: 'facebook_pixel_id', config_value: '1"><script>alert(1)</script>' },
      { config_key: 'google_analytics', config_value: 'G-1&foo=bar' },
      { config_key: 'tiktok_pixel', config_value: 'x'.repeat(65) },
      { config_key: 'bigo_pixel', config_value: '' },
      { config_key: 'other_pixel', config_value: 'abc' },
      { config_key: 'bigo_pixel', config_value: 'ok_id-1' },
    ]);
    expect(scripts()).toEqual(['https://api.imotech.video/ad/events.js?pixel_id=ok_id-1']);
    expect(window.fbq).toBeUndefined();
  });

  it('queue calls in each vendor’s standard stub until its script takes them: init first, then page views', async () => {
    const { loadPixels, trackPixels } = await freshPixels();
    trackPixels('page_view', { path: '/videos/v1', url: 'https://cliffhanger.example/videos/v1' });
    loadPixels(ALL);
    trackPixels('page_view', { path: '/shopping', url: 'https://cliffhanger.example/shopping' });

    expect(entries(window.fbq!.queue)).toEqual([['init', '1234567890'], ['track', 'PageView'], ['track', 'PageView']]);
    expect(window._fbq).toBe(window.fbq);
    const gtag = entries(window.dataLayer);
    expect(gtag[0]![0]).toBe('js');
    expect(gtag.slice(1)).toEqual([
      ['config', 'G-ABC123', { send_page_view: false }],
      ['event', 'page_view', { page_path: '/videos/v1', page_location: 'https://cliffhanger.example/videos/v1' }],
      ['event', 'page_view', { page_path: '/shopping', page_location: 'https://cliffhanger.example/shopping' }],
    ]);
    // gtag.js reads only arguments objects as commands.
    expect(Object.prototype.toString.call(window.dataLayer![1])).toBe('[object Arguments]');
    expect(window.TiktokAnalyticsObject).toBe('ttq');
    expect(Object.keys(window.ttq!._i!)).toEqual(['CTT42']);
    expect(entries(window.ttq)).toEqual([['page'], ['page']]);
    expect(entries(window.bgdataLayer)).toEqual([['init', 'bigo-7'], ['event', 'page_view'], ['event', 'page_view']]);
  });

  it('hand calls straight to a vendor script once it has taken the queue', async () => {
    const { loadPixels, trackPixels } = await freshPixels();
    loadPixels(ALL.slice(0, 1));
    const received: unknown[][] = [];
    window.fbq!.callMethod = (...args) => received.push(args);
    trackPixels('page_view', { path: '/', url: 'https://cliffhanger.example/' });
    expect(received).toEqual([['track', 'PageView']]);
  });

  it('report a purchase with value, currency and the order’s event id, defaulting to 0 USD', async () => {
    const { loadPixels, trackPixels, purchaseEventId } = await freshPixels();
    loadPixels(ALL);
    trackPixels('purchase', { orderId: 'o1', planId: 'coins-500', value: 4.99, currency: 'USD' });
    trackPixels('purchase', { orderId: 'o2', planId: 'coins-100' });

    expect(purchaseEventId('o1')).toBe('order:o1');
    expect(entries(window.fbq!.queue).slice(1)).toEqual([
      ['track', 'Purchase', { value: 4.99, currency: 'USD', content_ids: ['coins-500'], content_type: 'product' }, { eventID: 'order:o1' }],
      ['track', 'Purchase', { value: 0, currency: 'USD', content_ids: ['coins-100'], content_type: 'product' }, { eventID: 'order:o2' }],
    ]);
    expect(entries(window.dataLayer).slice(2)).toEqual([
      ['event', 'purchase', { transaction_id: 'o1', value: 4.99, currency: 'USD', items: [{ item_id: 'coins-500' }] }],
      ['event', 'purchase', { transaction_id: 'o2', value: 0, currency: 'USD', items: [{ item_id: 'coins-100' }] }],
    ]);
    expect(entries(window.ttq)).toEqual([
      ['track', 'CompletePayment', { value: 4.99, currency: 'USD', contents: [{ content_id: 'coins-500', content_type: 'product' }] }, { event_id: 'order:o1' }],
      ['track', 'CompletePayment', { value: 0, currency: 'USD', contents: [{ content_id: 'coins-100', content_type: 'product' }] }, { event_id: 'order:o2' }],
    ]);
    expect(entries(window.bgdataLayer).slice(1)).toEqual([
      ['event', 'ec_purchase', { value: 4.99, currency: 'USD' }],
      ['event', 'ec_purchase', { value: 0, currency: 'USD' }],
    ]);
  });

  it('report a content view and an unlock with the episode as the content', async () => {
    const { loadPixels, trackPixels } = await freshPixels();
    loadPixels(ALL);
    trackPixels('view_content', { videoId: 'v1', episodeId: 'e2' });
    trackPixels('unlock', { videoId: 'v1', episodeId: 'e2', coins: 60 });

    expect(entries(window.fbq!.queue).slice(1)).toEqual([
      ['track', 'ViewContent', { content_ids: ['e2'], content_type: 'product', video_id: 'v1', value: 0, currency: 'USD' }],
      ['trackCustom', 'UnlockEpisode', { content_ids: ['e2'], video_id: 'v1', coins: 60, value: 0, currency: 'USD' }],
    ]);
    expect(entries(window.dataLayer).slice(2)).toEqual([
      ['event', 'view_item', { value: 0, currency: 'USD', items: [{ item_id: 'e2', item_group_id: 'v1' }] }],
      ['event', 'spend_virtual_currency', { value: 60, virtual_currency_name: 'coins', item_name: 'e2' }],
    ]);
    expect(entries(window.ttq)).toEqual([
      ['track', 'ViewContent', { contents: [{ content_id: 'e2', content_type: 'product' }], video_id: 'v1', value: 0, currency: 'USD' }],
      ['track', 'UnlockEpisode', { contents: [{ content_id: 'e2', content_type: 'product' }], video_id: 'v1', coins: 60, value: 0, currency: 'USD' }],
    ]);
    expect(entries(window.bgdataLayer).slice(1)).toEqual([['event', 'ec_detail_view']]);
  });

  it('stop calling a vendor whose script could not load, and keep the others going', async () => {
    const { loadPixels, trackPixels } = await freshPixels();
    loadPixels(ALL);
    const facebook = document.head.querySelector<HTMLScriptElement>('script[src*="facebook"]')!;
    expect(() => facebook.dispatchEvent(new Event('error'))).not.toThrow();
    expect(facebook.isConnected).toBe(false);

    trackPixels('page_view', { path: '/', url: 'https://cliffhanger.example/' });
    expect(entries(window.fbq!.queue)).toEqual([['init', '1234567890']]);
    expect(entries(window.bgdataLayer)).toEqual([['init', 'bigo-7'], ['event', 'page_view']]);
  });

  it('keep a vendor’s failure inside: one throwing takes nothing down', async () => {
    const { loadPixels, trackPixels } = await freshPixels();
    loadPixels(ALL);
    window.fbq!.callMethod = () => {
      throw new Error('fbevents broke');
    };
    expect(() => trackPixels('page_view', { path: '/', url: 'https://cliffhanger.example/' })).not.toThrow();
    expect(entries(window.ttq)).toEqual([['page']]);
  });
});
