import { readAttribution, keepUserToken, readUtm } from '../lib/attribution';
import { showToast } from '../lib/toast';
import { trackEvent } from './analytics';

export const REQUEST_TIMEOUT_MS = 100_000;

// When cookies are disabled the user token travels a second time, under this name (spec section 7).
export const REPEATED_TOKEN_HEADER = 'token';

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data?: T;
  info?: T;
}

/** A rejected call: `code` is the envelope code, or the HTTP status when the call failed below it. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown = null,
    readonly httpStatus = 200,
  ) {
    super(message || `Request failed (${code})`);
    this.name = 'ApiError';
  }

  /** Field messages of a 422 answer, e.g. { email: "Please enter your email" }. */
  get fields(): Record<string, string> {
    const fields = (this.data as { fields?: unknown } | null)?.fields;
    return fields && typeof fields === 'object' ? (fields as Record<string, string>) : {};
  }
}

export interface LockedEpisode {
  episodeId: string;
  videoId?: string;
  priceCoins: number;
  balance: number;
}

export type ApiSignal = { kind: 'login-required' } | { kind: 'unlock-required'; locked: LockedEpisode };

const signalListeners = new Set<(signal: ApiSignal) => void>();

/** 401 and 402 answers are announced here: the shell sends the user to /login or opens the unlock sheet. */
export function onApiSignal(listener: (signal: ApiSignal) => void): () => void {
  signalListeners.add(listener);
  return () => signalListeners.delete(listener);
}

function announce(signal: ApiSignal): void {
  signalListeners.forEach((listener) => listener(signal));
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Lets a call outlive the page, for the history position saved on leave. */
  keepalive?: boolean;
}

function cookiesEnabled(): boolean {
  return typeof navigator === 'undefined' || navigator.cookieEnabled !== false;
}

/**
 * A W3C trace context for one call: a new trace whose first span is the call, recorded by the
 * server (flags 00: the browser records nothing), so its trace id runs from here to every consumer.
 */
export function newTraceparent(): string {
  const hex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `00-${hex(16)}-${hex(8)}-00`;
}

let interfaceLanguage: string | null = null;

/**
 * The interface language the viewer reads (its `<html lang>` tag), sent as Accept-Language on every
 * call: the server writes the viewer's mails in it (receipts, renewal notices), not in the browser's.
 * The i18n provider sets it whenever the language changes.
 */
export function setInterfaceLanguage(htmlLang: string): void {
  interfaceLanguage = htmlLang;
}

export function buildHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const { referrerToken, userToken, fbclid, ttclid } = readAttribution();
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', traceparent: newTraceparent() };
  if (interfaceLanguage) headers['accept-language'] = interfaceLanguage;
  if (referrerToken) headers['x-referrer-token'] = referrerToken;
  if (userToken) {
    headers['x-user-token'] = userToken;
    if (!cookiesEnabled()) headers[REPEATED_TOKEN_HEADER] = userToken;
  }
  if (fbclid) headers['x-fbclid'] = fbclid;
  if (ttclid) headers['x-ttclid'] = ttclid;
  // The landing URL's utm_* fields as one query, so any text fits a header: an order keeps them.
  const utm = new URLSearchParams(readUtm()).toString();
  if (utm) headers['x-utm'] = utm;
  return { ...headers, ...extra };
}

export function buildUrl(path: string, query: Query = {}): string {
  const { fbclid, ttclid } = readAttribution();
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, fbclid, ttclid })) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

function buildBody(body: Record<string, unknown> = {}): string {
  const { fbclid, ttclid } = readAttribution();
  return JSON.stringify({ ...body, ...(fbclid ? { fbclid } : {}), ...(ttclid ? { ttclid } : {}) });
}

async function readEnvelope(response: Response): Promise<Envelope | null> {
  try {
    return (await response.json()) as Envelope;
  } catch {
    return null;
  }
}

function failAtHttpLevel(path: string, status: number, message: string, data: unknown = null): never {
  showToast(message);
  trackEvent(`${path.replace(/^\/+/, '').replace(/[^a-zA-Z0-9]+/g, '_')}_${status}`, { url: path, status });
  throw new ApiError(status, message, data, status);
}

const IDENTITY_PATH = '/api/user';
let identifying: Promise<unknown> | null = null;

/**
 * The one HTTP client of the storefront: envelope, headers and failures as spec sections 7 and 8 say.
 * A first-time visitor has no user token yet: every call waits for the one current-user call that
 * makes the guest, so calls sent at the same moment neither fail with 401 nor make several guests.
 */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  if (readAttribution().userToken) return send<T>(method, path, options);
  identifying ??= send('GET', IDENTITY_PATH, {}).finally(() => {
    identifying = null;
  });
  if (method === 'GET' && path === IDENTITY_PATH) return identifying as Promise<T>;
  await identifying.catch(() => undefined);
  return send<T>(method, path, options);
}

async function send<T>(method: string, path: string, options: RequestOptions): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
  const hasBody = method !== 'GET' && method !== 'HEAD';
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method,
      headers: buildHeaders(options.headers),
      body: hasBody ? buildBody(options.body) : undefined,
      signal: controller.signal,
      credentials: 'same-origin',
      keepalive: options.keepalive,
    });
  } catch (error) {
    clearTimeout(timer);
    const timedOut = controller.signal.aborted;
    return failAtHttpLevel(path, timedOut ? 408 : 0, timedOut ? 'The request timed out' : 'Network error', error);
  }
  clearTimeout(timer);

  const token = response.headers.get('x-user-token');
  if (token) keepUserToken(token);

  const envelope = await readEnvelope(response);
  if (!response.ok) {
    return failAtHttpLevel(path, response.status, envelope?.message || response.statusText || 'Request failed', envelope?.data);
  }
  if (!envelope || typeof envelope.code !== 'number') {
    return failAtHttpLevel(path, response.status, 'Unexpected answer from the server');
  }
  if (envelope.code === 200) return (envelope.info ?? envelope.data) as T;

  const error = new ApiError(envelope.code, envelope.message, envelope.data ?? null);
  if (envelope.code === 500) showToast(envelope.message);
  if (envelope.code === 401) announce({ kind: 'login-required' });
  if (envelope.code === 402 && (envelope.data as LockedEpisode | null)?.episodeId) {
    announce({ kind: 'unlock-required', locked: envelope.data as LockedEpisode });
  }
  throw error;
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', path, { query }),
  post: <T>(path: string, body?: Record<string, unknown>, options: Omit<RequestOptions, 'body'> = {}) =>
    request<T>('POST', path, { ...options, body }),
  delete: <T>(path: string, body?: Record<string, unknown>) => request<T>('DELETE', path, { body }),
};

export interface Page<T> {
  items: T[];
  page: number;
  size: number;
  hasMore: boolean;
}
