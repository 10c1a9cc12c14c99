import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, renderHook, waitFor } from '@testing-library/react';
import { useEffect, type ReactElement, type ReactNode } from 'react';
import { createBrowserRouter, createMemoryRouter, MemoryRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { afterEach, vi } from 'vitest';
import type { Video, VideoCard } from '../api/types';
import { I18nProvider } from '../i18n/I18nProvider';
import { STORAGE_KEYS } from '../lib/storage';

// The viewer's storefront as its unit tests render it: the query cache, the interface texts and a
// router around a page (or the routes given), against a fetch that answers the API's envelopes
// `{ code, message, data }` from a table and keeps every call. The console's pages have their own
// kit (admin/consoleTestKit.tsx), since the console is an app of its own.
//
// A suite that imports it is also torn down by it after each test, as testing-library's own cleanup
// would be: what was rendered is unmounted, stubbed globals (fetch among them) and spies are undone,
// and the address bar is back at "/". A suite adds only what it set up besides.
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  window.history.replaceState(null, '', '/');
});

/** A call the page made, as the stand-in of fetch saw it. */
export interface ApiCall {
  method: string;
  /** The address as the page asked for it. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  /** The JSON body sent, or null. */
  body: Record<string, unknown> | null;
  keepalive: boolean;
}

type WithHeaders = { headers?: Record<string, string> };
/** An envelope on HTTP 200, as the API answers; `{ data }` alone is a success (code 200, "ok"). */
export type Envelope = { code?: number; message?: string; data?: unknown } & WithHeaders;
/** An answer outside the envelope: any HTTP status and body (a string is sent as it is, null as no body). */
export type RawAnswer = { status: number; body: unknown } & WithHeaders;
/** 'no answer': the call fails on the way, as fetch does offline. */
export type ApiAnswer = Envelope | RawAnswer | 'no answer';
export type ApiRoute = ApiAnswer | ((call: ApiCall) => ApiAnswer | Promise<ApiAnswer>);
/** Answers by "METHOD /path" or by "/path" (any method); the table is read at each call, so a test may change it later. */
export type Answers = Record<string, ApiRoute>;

export const ok = (data: unknown): Envelope => ({ code: 200, message: 'ok', data });

export interface ServedApi {
  /** Every call, in order. */
  calls: ApiCall[];
  /** The calls of one method to one path. */
  callsTo: (method: string, path: string) => ApiCall[];
  fetch: ReturnType<typeof vi.fn>;
}

/** What a call nobody answered gets: a success with no data. */
const NOTHING: Envelope = ok(null);

function respond(answer: ApiAnswer): Response {
  if (answer === 'no answer') throw new TypeError('Failed to fetch');
  if ('status' in answer) {
    const text = answer.body === null || answer.body === undefined ? null : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    const type: Record<string, string> = text === null || typeof answer.body === 'string' ? {} : { 'content-type': 'application/json' };
    return new Response(text, { status: answer.status, headers: { ...type, ...answer.headers } });
  }
  const envelope = { code: answer.code ?? 200, message: answer.message ?? 'ok', data: answer.data ?? null };
  return new Response(JSON.stringify(envelope), { headers: { 'content-type': 'application/json', ...answer.headers } });
}

/**
 * Stands in for fetch (vi.stubGlobal: undone by vi.unstubAllGlobals) with the API answering from
 * `answers`, and anything else with `fallback`; a call `hold` picks is kept and never answered, as on
 * a slow network.
 */
export function serveApi(answers: Answers = {}, { fallback = NOTHING, hold }: { fallback?: ApiRoute; hold?: (call: ApiCall) => boolean } = {}): ServedApi {
  const calls: ApiCall[] = [];
  const fetch = vi.fn(async (input: string, init: RequestInit = {}) => {
    const parsed = new URL(input, 'http://localhost');
    const call: ApiCall = {
      method: init.method ?? 'GET',
      url: input,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: (init.headers ?? {}) as Record<string, string>,
      body: typeof init.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : null,
      keepalive: Boolean(init.keepalive),
    };
    calls.push(call);
    if (hold?.(call)) await new Promise<never>(() => {});
    const route = answers[`${call.method} ${call.path}`] ?? answers[call.path] ?? fallback;
    return respond(typeof route === 'function' ? await route(call) : route);
  });
  vi.stubGlobal('fetch', fetch);
  return { calls, callsTo: (method, path) => calls.filter((call) => call.method === method && call.path === path), fetch };
}

/** Our pixel alone (GET /api/statics.png, answered with no body, as an image is not read): its hits, as their queries, in a list that fills as they come. */
export function servePixel(): URLSearchParams[] {
  const hits: URLSearchParams[] = [];
  serveApi({
    'GET /api/statics.png': (call) => {
      hits.push(call.query);
      return { status: 200, body: null };
    },
  });
  return hits;
}

export interface AppOptions {
  /** Where the app opens (default "/"); with `browser`, written into the address bar first. */
  path?: string;
  /** The interface language the viewer chose (kept as the storefront keeps it); otherwise the browser's. */
  language?: string;
  /** Default: a fresh cache that does not retry. */
  queryClient?: QueryClient;
  /** Serve the API from these (serveApi), returned as `api`. */
  answers?: Answers;
  fallback?: ApiRoute;
  /** The browser's own history (window.location), as the storefront runs, instead of one in memory. */
  browser?: boolean;
}

export const testQueryClient = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

function AppProviders({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <I18nProvider>{children}</I18nProvider>
    </QueryClientProvider>
  );
}

type AppRouter = ReturnType<typeof createMemoryRouter>;

/** The router, let go of when the app unmounts (a browser router listens to the window). */
function Routed({ router }: { router: AppRouter }) {
  useEffect(() => () => router.dispose(), [router]);
  return <RouterProvider router={router} />;
}

function prepare(options: AppOptions) {
  const api = options.answers ? serveApi(options.answers, { fallback: options.fallback }) : undefined;
  if (options.language) localStorage.setItem(STORAGE_KEYS.language, options.language);
  return { api, queryClient: options.queryClient ?? testQueryClient() };
}

/** A page (or routes) of the storefront in its providers: returns the render, the router (to read or move its location), the cache and the served API. */
export function renderWithApp(app: ReactElement | RouteObject[], options: AppOptions = {}) {
  const { api, queryClient } = prepare(options);
  const routes: RouteObject[] = Array.isArray(app) ? app : [{ path: '*', element: app }];
  if (options.browser && options.path) window.history.replaceState(null, '', options.path);
  const router = options.browser ? createBrowserRouter(routes) : createMemoryRouter(routes, { initialEntries: [options.path ?? '/'] });
  const view = render(
    <AppProviders queryClient={queryClient}>
      <Routed router={router} />
    </AppProviders>,
  );
  return { ...view, router, queryClient, api };
}

/** A hook in the same providers; resolves once the texts have loaded and the hook has run. */
export async function renderHookWithApp<Result, Props>(hook: (props: Props) => Result, options: AppOptions & { initialProps?: Props } = {}) {
  const { api, queryClient } = prepare(options);
  const wrapper = ({ children }: { children: ReactNode }) => (
    <AppProviders queryClient={queryClient}>
      <MemoryRouter initialEntries={[options.path ?? '/']}>{children}</MemoryRouter>
    </AppProviders>
  );
  const view = renderHook(hook, { wrapper, initialProps: options.initialProps });
  await waitFor(() => {
    if (view.result.current === null) throw new Error('The hook has not run: the app has not rendered yet.');
  });
  return { ...view, queryClient, api };
}

/** A series as the catalog lists it. */
export const card = (id: string, title: string): VideoCard => ({ id, title, cover: `/media/public/covers/${id}.jpg`, tags: ['Romance'], episodeCount: 24, playCount: 1234 });
/** The first page of a list, and the last. */
export const page = (items: VideoCard[]) => ({ items, page: 1, size: 12, hasMore: false });

/** "The Heir Returns" with `episodes` episodes of a minute, as a visitor who has unlocked nothing sees it: the first free, each after it 30 coins. */
export const heirReturns = (episodes: number): Video => ({
  ...card('heir', 'The Heir Returns'),
  description: 'A heir comes home.',
  freeEpisodes: 1,
  priceCoins: 30,
  favorited: false,
  resume: null,
  episodes: Array.from({ length: episodes }, (_, index) => index + 1).map((number) => ({ id: `e${number}`, number, title: `Episode ${number}`, durationSeconds: 60, locked: number > 1, ready: true })),
});
