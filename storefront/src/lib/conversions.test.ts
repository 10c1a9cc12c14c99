import { beforeEach, describe, expect, it, vi } from 'vitest';
import { servePixel } from '../testing/renderWithApp';

let hits: URLSearchParams[];

/** A fresh page: new modules (the pixels load once per page), the same local storage. */
async function freshPage() {
  vi.resetModules();
  document.head.innerHTML = '';
  for (const name of ['fbq', '_fbq', 'dataLayer', 'gtag', 'TiktokAnalyticsObject', 'ttq', 'bgdataLayer', 'bge'] as const) delete window[name];
  const [conversions, pixels] = await Promise.all([import('./conversions'), import('./adPixels')]);
  pixels.loadPixels([{ config_key: 'facebook_pixel_id', config_value: '1234567890' }]);
  return conversions;
}

const facebookCalls = () => (window.fbq?.queue ?? []).map((entry) => Array.from(entry as ArrayLike<unknown>)).slice(1);
const hitsOf = (event: string) => hits.filter((hit) => hit.get('event') === event).map((hit) => Object.fromEntries(hit));

beforeEach(() => {
  localStorage.clear();
  hits = servePixel();
});

describe('conversions', () => {
  it('report a paid order to our pixel and the ad pixels with its value in major units and the order’s event id', async () => {
    const { trackPurchase } = await freshPage();
    trackPurchase({ id: 'o1', planId: 'coins-500', price: { amount: 499, currency: 'USD' } });

    expect(hitsOf('purchase')).toEqual([expect.objectContaining({ orderId: 'o1', planId: 'coins-500', value: '4.99', currency: 'USD', eventId: 'order:o1' })]);
    expect(facebookCalls()).toEqual([
      ['track', 'Purchase', { value: 4.99, currency: 'USD', content_ids: ['coins-500'], content_type: 'product' }, { eventID: 'order:o1' }],
    ]);
  });

  it('report an order once, not again when its result page renders again or is reloaded', async () => {
    const order = { id: 'o2', planId: 'vip-week', price: { amount: 699, currency: 'USD' } };
    const first = await freshPage();
    first.trackPurchase(order);
    first.trackPurchase(order);
    const reloaded = await freshPage();
    reloaded.trackPurchase(order);
    reloaded.trackPurchase({ ...order, id: 'o3' });

    expect(hitsOf('purchase').map((hit) => hit.orderId)).toEqual(['o2', 'o3']);
    expect(facebookCalls().map((call) => call[3])).toEqual([{ eventID: 'order:o3' }]);
  });

  it('still report each order once when the browser keeps no storage', async () => {
    const { trackPurchase } = await freshPage();
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    const order = { id: 'o4', planId: 'coins-500', price: { amount: 499, currency: 'USD' } };
    trackPurchase(order);
    trackPurchase(order);
    vi.restoreAllMocks();
    expect(hitsOf('purchase').map((hit) => hit.orderId)).toEqual(['o4']);
  });

  it('count a content view as a video view and report an unlock with its coins', async () => {
    const { trackContentView, trackPageView, trackUnlock } = await freshPage();
    trackPageView('/videos/v1');
    trackContentView('v1', 'e2');
    trackUnlock({ videoId: 'v1', episodeId: 'e3', coins: 60 });

    expect(hitsOf('landing')).toEqual([expect.objectContaining({ path: '/videos/v1' })]);
    expect(hitsOf('video_view')).toEqual([expect.objectContaining({ videoId: 'v1', episodeId: 'e2' })]);
    expect(hitsOf('unlock')).toEqual([expect.objectContaining({ videoId: 'v1', episodeId: 'e3', coins: '60' })]);
    expect(facebookCalls().map((call) => call.slice(0, 2))).toEqual([
      ['track', 'PageView'],
      ['track', 'ViewContent'],
      ['trackCustom', 'UnlockEpisode'],
    ]);
  });
});
