import { timingSafeEqual } from 'node:crypto';
import { AppError, ServiceUnavailable } from '../errors.ts';
import { downstreamFailed, type CircuitBreaker } from './circuit-breaker.ts';
import type { Envelope } from '../envelope.ts';
import type { RequestContext } from '../context.ts';
import { traceOutgoingCall } from './tracing.ts';

/**
 * How services that run apart talk: the gateway and services send a shared INTERNAL_TOKEN, the
 * request context (request id, user, attribution) and the trace context (`traceparent` of the
 * call's client span) in headers; answers are the usual envelope.
 */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
export const CONTEXT_HEADER = 'x-cliffhanger-context';

export function encodeContext(context: RequestContext): string {
  return Buffer.from(JSON.stringify(context)).toString('base64url');
}

export function decodeContext(value: string | undefined): RequestContext | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as RequestContext;
    return typeof parsed.requestId === 'string' && typeof parsed.attribution === 'object' ? parsed : null;
  } catch {
    return null;
  }
}

export function sameSecret(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface ServiceClient {
  get<T>(path: string, query?: Record<string, string>, context?: RequestContext): Promise<T>;
  post<T>(path: string, body: unknown, context?: RequestContext): Promise<T>;
}

export interface ServiceClientOptions {
  /** The downstream's circuit, shared with the gateway's forwarding to it; none: every call tries. */
  breaker?: CircuitBreaker;
  timeoutMs?: number;
  /** Tries of a GET (idempotent) that found the service unreachable or failing, with jittered waits between. */
  getTries?: number;
}

/**
 * A typed caller of another service's internal endpoints; a non-200 envelope throws its AppError.
 * A service that is unreachable, times out or answers 502/503/504 is a 503 to the caller (and a
 * failure for its circuit); a GET is tried again after a short jittered wait first.
 */
export function createServiceClient(baseUrl: string, internalToken: string, options: ServiceClientOptions = {}): ServiceClient {
  const { breaker, timeoutMs = 10_000, getTries = 3 } = options;
  const unavailable = () => breaker?.unavailable() ?? new ServiceUnavailable();

  /** One try: the envelope, or null when the service itself failed (unreachable, timed out, 502/503/504). */
  async function attempt<T>(method: string, url: URL, headers: Record<string, string>, body: unknown): Promise<Envelope<T> | null> {
    // fetch is undici, which no instrumentation here covers: its client span is made by hand.
    const call = traceOutgoingCall(method, url);
    try {
      const response = await fetch(url, {
        method,
        headers: { ...headers, ...call?.headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      call?.end({ status: response.status });
      if (downstreamFailed(response.status, response.headers.get('content-type'))) return null;
      return (await response.json()) as Envelope<T>;
    } catch (error) {
      call?.end({ error });
      return null;
    }
  }

  async function send<T>(method: string, path: string, body: unknown, context?: RequestContext): Promise<T> {
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: internalToken, accept: 'application/json' };
    if (context) headers[CONTEXT_HEADER] = encodeContext(context);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = new URL(path, baseUrl);
    const tries = method === 'GET' ? getTries : 1;
    for (let tried = 1; ; tried++) {
      if (breaker && !breaker.allow()) throw unavailable();
      const envelope = await attempt<T>(method, url, headers, body);
      if (envelope) {
        breaker?.succeeded();
        if (envelope.code !== 200) throw new AppError(envelope.code, envelope.message, envelope.data);
        return envelope.data;
      }
      breaker?.failed();
      if (tried >= tries) throw unavailable();
      await new Promise((resolve) => setTimeout(resolve, 50 * tried + Math.random() * 100 * tried));
    }
  }
  return {
    get: (path, query, context) => send('GET', query ? `${path}?${new URLSearchParams(query)}` : path, undefined, context),
    post: (path, body, context) => send('POST', path, body, context),
  };
}
