import { beforeEach, describe, expect, it } from 'vitest';
import { servePixel } from '../testing/renderWithApp';
import { keepAttribution } from './attribution';
import { trackPageView } from './conversions';
import { keepVisitAlive } from './visit';

let pixel: URLSearchParams[];
/** Our pixel's hits so far, as their fields. */
const hits = () => pixel.map((query) => Object.fromEntries(query));
const MINUTE = 60_000;
const start = Date.UTC(2026, 10, 27, 12);

/** A page opened at `at` minutes after the start, from `url` (its query is kept first, as the router does). */
function open(url: string, at: number): void {
  const { pathname, search } = new URL(url, 'http://localhost');
  keepAttribution(search);
  trackPageView(pathname, start + at * MINUTE);
}

beforeEach(() => {
  localStorage.clear();
  pixel = servePixel();
});

describe('visits', () => {
  it('get their id on a page served over plain http too, where browsers give no crypto.randomUUID', () => {
    const randomUUID = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(crypto), 'randomUUID');
    Object.defineProperty(Object.getPrototypeOf(crypto), 'randomUUID', { value: undefined, configurable: true });
    try {
      open('/?utm_campaign=spring', 0);
      open('/search', 1);
    } finally {
      if (randomUUID) Object.defineProperty(Object.getPrototypeOf(crypto), 'randomUUID', randomUUID);
    }
    expect(hits().map((hit) => hit.event)).toEqual(['landing', 'page_view']);
    expect(hits()[0]!.visit).toMatch(/^[0-9a-f]{32}$/);
    expect(hits()[1]!.visit).toBe(hits()[0]!.visit);
  });

  it('send one landing with the utm fields of its URL, then page views of the same visit', () => {
    open('/?utm_source=newsletter&utm_medium=email&utm_campaign=spring&utm_term=drama&utm_content=hero&other=x', 0);
    open('/search', 1);
    open('/videos/v1', 5);
    open('/shopping', 20);

    expect(hits().map((hit) => hit.event)).toEqual(['landing', 'page_view', 'page_view', 'page_view']);
    expect(new Set(hits().map((hit) => hit.visit)).size).toBe(1);
    expect(hits()[0]).toMatchObject({ path: '/', utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring', utm_term: 'drama', utm_content: 'hero' });
    expect(hits()[0]).not.toHaveProperty('other');
    // Each page carries the visit's campaign: it counts under it even if the landing's hit went out
    // before the viewer's token had come back.
    expect(hits()[3]).toMatchObject({ path: '/shopping', utm_source: 'newsletter', utm_campaign: 'spring' });
  });

  it('start a new visit when a new campaign or click id arrives, not when the same one comes again', () => {
    open('/?utm_campaign=spring', 0);
    open('/?utm_campaign=spring', 1);
    open('/videos/v1?utm_campaign=summer', 2);
    open('/search?fbclid=fb-1', 3);

    expect(hits().map((hit) => hit.event)).toEqual(['landing', 'page_view', 'landing', 'landing']);
    expect(hits()[2]).toMatchObject({ utm_campaign: 'summer' });
    expect(new Set(hits().map((hit) => hit.visit)).size).toBe(3);
  });

  it('start a new visit after 30 minutes without a page view', () => {
    open('/', 0);
    open('/search', 30);
    open('/shopping', 61);

    expect(hits().map((hit) => hit.event)).toEqual(['landing', 'page_view', 'landing']);
    expect(hits()[2]!.visit).not.toBe(hits()[0]!.visit);
  });

  it('stay alive while the viewer watches on one page, without counting page views', () => {
    open('/videos/v1', 0);
    // An hour of watching on the page: a save of the position every 5 seconds keeps the visit going.
    for (let second = 5; second <= 60 * 60; second += 5) keepVisitAlive(start + second * 1000);
    open('/search', 61);

    expect(hits().map((hit) => hit.event)).toEqual(['landing', 'page_view']);
    expect(hits()[1]!.visit).toBe(hits()[0]!.visit);
  });

  it('stay ended when watching resumes after 30 idle minutes', () => {
    open('/videos/v1', 0);
    keepVisitAlive(start + 31 * MINUTE);
    open('/search', 32);

    expect(hits().map((hit) => hit.event)).toEqual(['landing', 'landing']);
    expect(hits()[1]!.visit).not.toBe(hits()[0]!.visit);
  });
});
