import { ServiceUnavailable, Unauthorized } from './errors.ts';

/** Where a visitor came from: kept by the storefront from the landing URL, sent on every call. */
export interface Attribution {
  referrerToken: string | null;
  fbclid: string | null;
  ttclid: string | null;
}

/** What every service call and every event knows about the request that caused it. */
export interface RequestContext {
  requestId: string;
  userId: string | null;
  attribution: Attribution;
  /**
   * The W3C trace context (`traceparent`) of the request's span: an event written for the request
   * where that span is not active still continues its trace.
   */
  traceparent?: string;
  /**
   * Set when the gateway could not ask who the caller is (the user service is down): the call goes on
   * as anonymous, and a call that needs a user answers 503 rather than a 401 that would sign them out.
   */
  identityUnavailable?: true;
}

export const noAttribution: Attribution = { referrerToken: null, fbclid: null, ttclid: null };

export function systemContext(requestId = 'system'): RequestContext {
  return { requestId, userId: null, attribution: noAttribution };
}

/** The caller's user id, for calls only a user may make: 401 without one, 503 when who they are cannot be told now. */
export function requireUser(context: RequestContext): string {
  if (context.userId) return context.userId;
  if (context.identityUnavailable) throw new ServiceUnavailable('Your account cannot be checked right now. Please try again shortly.');
  throw new Unauthorized();
}
