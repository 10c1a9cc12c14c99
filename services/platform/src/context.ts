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
}

export const noAttribution: Attribution = { referrerToken: null, fbclid: null, ttclid: null };

export function systemContext(requestId = 'system'): RequestContext {
  return { requestId, userId: null, attribution: noAttribution };
}
