import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.ts';
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

/** A typed caller of another service's internal endpoints; a non-200 envelope throws its AppError. */
export function createServiceClient(baseUrl: string, internalToken: string, timeoutMs = 10_000): ServiceClient {
  async function send<T>(method: string, path: string, body: unknown, context?: RequestContext): Promise<T> {
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: internalToken, accept: 'application/json' };
    if (context) headers[CONTEXT_HEADER] = encodeContext(context);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = new URL(path, baseUrl);
    const call = traceOutgoingCall(method, url);
    let envelope: Envelope<T>;
    try {
      const response = await fetch(url, {
        method,
        headers: { ...headers, ...call?.headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      envelope = (await response.json()) as Envelope<T>;
      call?.end({ status: response.status });
    } catch (error) {
      call?.end({ error });
      throw error;
    }
    if (envelope.code !== 200) throw new AppError(envelope.code, envelope.message, envelope.data);
    return envelope.data;
  }
  return {
    get: (path, query, context) => send('GET', query ? `${path}?${new URLSearchParams(query)}` : path, undefined, context),
    post: (path, body, context) => send('POST', path, body, context),
  };
}
