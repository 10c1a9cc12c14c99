import { ServiceUnavailable, Unauthorized } from './errors.ts';

/** Where a visitor came from: kept by the storefront from the landing URL, sent on every call. */
export interface Attribution {
  referrerToken: string | null;
  fbclid: string | null;
  ttclid: string | null;
  /** The landing URL's campaign fields (utm_*), kept and sent like the click ids; absent when it had none. */
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  utmTerm?: string | null;
  utmContent?: string | null;
}

/** The Attribution fields of the utm_* fields, by URL name: what the storefront sends in `x-utm`. */
export const utmFields = {
  utm_source: 'utmSource',
  utm_medium: 'utmMedium',
  utm_campaign: 'utmCampaign',
  utm_term: 'utmTerm',
  utm_content: 'utmContent',
} as const satisfies Record<string, keyof Attribution>;
export type UtmKey = (typeof utmFields)[keyof typeof utmFields];
export const utmKeys = Object.values(utmFields) as UtmKey[];

/** The utm fields an attribution holds, only those set. */
export const utmOf = (attribution: Partial<Attribution> | undefined): Partial<Record<UtmKey, string>> =>
  Object.fromEntries(utmKeys.flatMap((key) => (attribution?.[key] ? [[key, attribution[key]]] : [])));

/**
 * What a member may do in the admin API (docs/api.md "Admin"): `viewer` nothing; `operator` content,
 * users and support; `admin` also money, plans and roles.
 */
export const roles = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof roles)[number];

/** Who a user token belongs to. */
export interface Caller {
  userId: string;
  role: Role;
}

/** What every service call and every event knows about the request that caused it. */
export interface RequestContext {
  requestId: string;
  userId: string | null;
  /** The caller's role when it is more than `viewer`: what the admin guard of each service reads. */
  role?: Role;
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
