import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepAttribution, keepUserToken } from '../lib/attribution';
import { onToast } from '../lib/toast';
import { STORAGE_KEYS } from '../lib/storage';
import { ApiError, api, onApiSignal, REQUEST_TIMEOUT_MS, setInterfaceLanguage, type ApiSignal } from './client';

interface Captured {
  url: string;
  init: RequestInit;
}

let calls: Captured[];
let toasts: string[];
let pixels: Captured[];
let stopToasts: () => void;

/** Answers every API call with `body`; statics.png hits are kept apart, in `pixels`. */
function answer(body: unknown, status = 200, headers: Record<string, string> = {}) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      if (url.startsWith('/api/statics.png')) {
        pixels.push({ url, init });
        return new Response(null, { headers: { 'content-type': 'image/png' } });
      }
      calls.push({ url, init });
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
    }),
  );
}

function sentHeaders(): Record<string, string> {
  return calls[0]!.init.headers as Record<string, string>;
}

beforeEach(() => {
  localStorage.clear();
  keepUserToken('user-token-9');
  calls = [];
  toasts = [];
  pixels = [];
  stopToasts = onToast((toast) => toasts.push(toast.text));
});

afterEach(() => {
  stopToasts();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('the API client', () => {
  it('sends the interface language as Accept-Language, following the viewer’s choice', async () => {
    answer({ code: 200, message: 'ok', data: null });
    setInterfaceLanguage('de');
    await api.post('/api/payment/method', { paymentToken: 'tok_1' });
    setInterfaceLanguage('pt');
    await api.get('/api/payment');
    expect(calls.map((call) => (call.init.headers as Record<string, string>)['accept-language'])).toEqual(['de', 'pt']);
  });

  it('sends the referrer token, user token and both click ids from local storage on every call', async () => {
    keepAttribution('?token=ref-7&fbclid=fb-1&ttclid=tt-2');
    answer({ code: 200, message: 'ok', data: [] });

    await api.get('/api/tag');

    expect(sentHeaders()).toMatchObject({
      'content-type': 'application/json',
      'x-referrer-token': 'ref-7',
      'x-user-token': 'user-token-9',
      'x-fbclid': 'fb-1',
      'x-ttclid': 'tt-2',
    });
    expect(calls[0]!.url).toBe('/api/tag?fbclid=fb-1&ttclid=tt-2');
  });

  it("sends the landing URL's utm fields as one x-utm query, any text included", async () => {
    keepAttribution('?utm_source=news&utm_campaign=caf%C3%A9%20%26%20more&other=x');
    answer({ code: 200, message: 'ok', data: null });

    await api.post('/api/payment/order', { planId: 'coins-500' });

    const utm = new URLSearchParams(sentHeaders()['x-utm']);
    expect(Object.fromEntries(utm)).toEqual({ utm_source: 'news', utm_campaign: 'café & more' });
    expect(sentHeaders()['x-utm']).toMatch(/^[\x20-\x7e]+$/);
  });

  it('adds fbclid and ttclid to the query and to the JSON body', async () => {
    keepAttribution('?fbclid=fb-1&ttclid=tt-2');
    answer({ code: 200, message: 'ok', data: null });

    await api.post('/api/user/favorite', { videoId: 'v1' });

    expect(calls[0]!.url).toBe('/api/user/favorite?fbclid=fb-1&ttclid=tt-2');
    expect(calls[0]!.init.method).toBe('POST');
    expect(JSON.parse(calls[0]!.init.body as string)).toEqual({ videoId: 'v1', fbclid: 'fb-1', ttclid: 'tt-2' });
  });

  it('uses relative paths and keeps query values it was given', async () => {
    answer({ code: 200, message: 'ok', data: { items: [] } });
    await api.get('/api/homepage/query', { keyword: 'ceo', page: 2, size: 20, tagId: undefined });
    expect(calls[0]!.url).toBe('/api/homepage/query?keyword=ceo&page=2&size=20');
  });

  it('repeats the user token header when cookies are disabled', async () => {
    vi.spyOn(navigator, 'cookieEnabled', 'get').mockReturnValue(false);
    answer({ code: 200, message: 'ok', data: null });

    await api.get('/api/user');

    expect(sentHeaders()['x-user-token']).toBe('user-token-9');
    expect(sentHeaders().token).toBe('user-token-9');
  });

  it('does not repeat the token while cookies work', async () => {
    answer({ code: 200, message: 'ok', data: null });
    await api.get('/api/user');
    expect(sentHeaders().token).toBeUndefined();
  });

  it('keeps the x-user-token the server answers', async () => {
    answer({ code: 200, message: 'ok', data: { id: 'u1' } }, 200, { 'x-user-token': 'fresh-guest' });
    await api.get('/api/user');
    expect(localStorage.getItem(STORAGE_KEYS.userToken)).toBe('fresh-guest');
  });

  it('resolves code 200 with info when present, else data', async () => {
    answer({ code: 200, message: 'ok', info: { from: 'info' }, data: { from: 'data' } });
    await expect(api.get('/api/user')).resolves.toEqual({ from: 'info' });
    answer({ code: 200, message: 'ok', data: { from: 'data' } });
    await expect(api.get('/api/user')).resolves.toEqual({ from: 'data' });
  });

  it('shows the message of code 500 as a toast and rejects', async () => {
    answer({ code: 500, message: 'Incorrect email or password', data: null });
    await expect(api.post('/api/user/login', {})).rejects.toMatchObject({ code: 500, message: 'Incorrect email or password' });
    expect(toasts).toEqual(['Incorrect email or password']);
  });

  it('rejects any other code silently, keeping its data for the page', async () => {
    answer({ code: 422, message: 'Invalid', data: { fields: { email: 'Please enter your email' } } });
    const error = await api.post('/api/user/register', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).fields).toEqual({ email: 'Please enter your email' });
    expect(toasts).toEqual([]);
    expect(pixels).toEqual([]);
  });

  it('on an HTTP failure toasts the server message, reports an event named from url and status, and rejects', async () => {
    answer({ code: 429, message: 'Too many requests, slow down', data: null }, 429);
    await expect(api.get('/api/homepage')).rejects.toMatchObject({ code: 429, httpStatus: 429 });
    expect(toasts).toEqual(['Too many requests, slow down']);
    expect(pixels).toHaveLength(1);
    const hit = new URL(pixels[0]!.url, 'http://localhost');
    expect(hit.pathname).toBe('/api/statics.png');
    expect(hit.searchParams.get('event')).toBe('api_homepage_429');
    expect(hit.searchParams.get('url')).toBe('/api/homepage');
    expect(hit.searchParams.get('status')).toBe('429');
    expect((pixels[0]!.init.headers as Record<string, string>)['x-user-token']).toBe('user-token-9');
  });

  it('announces 401 so the shell can send the user to /login, and 402 so it can open the unlock sheet', async () => {
    const signals: ApiSignal[] = [];
    const stop = onApiSignal((signal) => signals.push(signal));
    answer({ code: 401, message: 'Login required', data: null });
    await expect(api.get('/api/user/favorite')).rejects.toBeInstanceOf(ApiError);
    const locked = { episodeId: 'e9', videoId: 'v1', priceCoins: 30, balance: 5 };
    answer({ code: 402, message: 'Locked', data: locked });
    await expect(api.get('/api/video/episode', { id: 'e9' })).rejects.toMatchObject({ code: 402 });
    stop();
    expect(signals).toEqual([{ kind: 'login-required' }, { kind: 'unlock-required', locked }]);
    expect(toasts).toEqual([]);
  });

  it('makes a first-time visitor’s calls wait for the one current-user call, and sends them with its guest token', async () => {
    localStorage.clear();
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        calls.push({ url, init });
        const isIdentity = url === '/api/user';
        await new Promise((resolve) => setTimeout(resolve, isIdentity ? 20 : 0));
        return new Response(JSON.stringify({ code: 200, message: 'ok', data: isIdentity ? { id: 'guest-1' } : [] }), {
          headers: isIdentity ? { 'x-user-token': 'guest-token' } : {},
        });
      }),
    );

    const [history, user, favorites] = await Promise.all([
      api.get('/api/user/history', { page: 1, size: 50 }),
      api.get('/api/user'),
      api.get('/api/user/favorite', { page: 1, size: 20 }),
    ]);

    expect(user).toEqual({ id: 'guest-1' });
    expect([history, favorites]).toEqual([[], []]);
    expect(calls.map((call) => call.url)).toEqual(['/api/user', '/api/user/history?page=1&size=50', '/api/user/favorite?page=1&size=20']);
    expect((calls[0]!.init.headers as Record<string, string>)['x-user-token']).toBeUndefined();
    expect((calls[1]!.init.headers as Record<string, string>)['x-user-token']).toBe('guest-token');
    expect((calls[2]!.init.headers as Record<string, string>)['x-user-token']).toBe('guest-token');
  });

  it('gives up after 100000 ms', async () => {
    expect(REQUEST_TIMEOUT_MS).toBe(100_000);
    vi.useFakeTimers();
    vi.stubGlobal(
      'fetch',
      vi.fn(
        (_url: string, init: RequestInit) =>
          new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
      ),
    );
    const pending = api.get('/api/homepage').catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(99_999);
    expect(toasts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toMatchObject({ code: 408 });
    expect(toasts).toEqual(['The request timed out']);
  });
});
