import { ConfigError, type Config } from '@cliffhanger/platform';
import type { ConversionDestination } from './schema.ts';

/** A purchase or a registration, as every destination is told of it. */
export interface Conversion {
  kind: 'purchase' | 'registration';
  /** What the browser pixel sends for the same conversion, so the advertiser counts it once. */
  eventId: string;
  /** ISO 8601. */
  time: string;
  /** SHA-256 (hex) of our user id, of the normalised email when known. */
  externalIdSha256: string | null;
  emailSha256: string | null;
  fbclid: string | null;
  ttclid: string | null;
  /** In major units (4.99), as the APIs take it. */
  value: { amount: number; currency: string } | null;
  /** The page of the site where it happened. */
  url: string;
}

/** What one delivery attempt came to. */
export type Outcome =
  | { kind: 'sent' }
  | { kind: 'retry'; error: string; retryAfterMs?: number }
  /** Refused for good: sending it again would be refused again. */
  | { kind: 'refused'; error: string };

export interface ConversionRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How one advertiser's API is told of a conversion, and what its answer means. */
export interface Destination {
  name: ConversionDestination;
  /** One entry of the request's `data` list: what is stored until it is sent. */
  entryOf(conversion: Conversion): Record<string, unknown>;
  requestOf(entry: Record<string, unknown>): ConversionRequest;
  outcomeOf(status: number, body: string, retryAfter: string | null): Outcome;
  /** The text with the access token taken out, for logs and last_error. */
  redact(text: string): string;
}

const GRAPH_VERSION = 'v21.0';
const MAX_ERROR = 500;

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const defined = <T extends Record<string, unknown>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined)) as Partial<T>;

function parsed(body: string): Record<string, any> | null {
  try {
    const value: unknown = JSON.parse(body);
    return value && typeof value === 'object' ? (value as Record<string, any>) : null;
  } catch {
    return null;
  }
}

/** Retry-After in seconds (the form both APIs use), as milliseconds. */
function retryAfterMs(header: string | null): number | undefined {
  const value = Number(header);
  return header !== null && Number.isFinite(value) && value > 0 ? value * 1000 : undefined;
}

const redactor = (token: string) => (text: string) =>
  text.replaceAll(token, '[redacted]').replace(/access_token=[^&\s"']*/g, 'access_token=[redacted]').slice(0, MAX_ERROR);

/** An answer every API means the same way: a server error or throttling is worth another try. */
function transportOutcome(status: number, message: string, retryAfter: string | null): Outcome | null {
  if (status === 429 || status >= 500) return { kind: 'retry', error: `HTTP ${status}: ${message}`, retryAfterMs: retryAfterMs(retryAfter) };
  if (status < 200 || status >= 300) return { kind: 'refused', error: `HTTP ${status}: ${message}` };
  return null;
}

// Graph API errors that pass (downtime, throttling), though answered with a 4xx: `is_transient`, or
// codes 1 and 2 (unknown, service), 4, 17, 32 and 613 (call-rate limits).
const GRAPH_TRANSIENT = new Set([1, 2, 4, 17, 32, 613]);

/** Facebook's Conversions API: POST /<version>/<pixel>/events, the token in the query. */
function facebook(graphUrl: string, pixelId: string, token: string): Destination {
  const url = `${graphUrl.replace(/\/+$/, '')}/${GRAPH_VERSION}/${encodeURIComponent(pixelId)}/events?access_token=${encodeURIComponent(token)}`;
  return {
    name: 'facebook',
    entryOf: (conversion) => ({
      event_name: conversion.kind === 'purchase' ? 'Purchase' : 'CompleteRegistration',
      event_time: seconds(conversion.time),
      event_id: conversion.eventId,
      action_source: 'website',
      event_source_url: conversion.url,
      user_data: defined({
        em: conversion.emailSha256,
        external_id: conversion.externalIdSha256,
        // The click's cookie as the pixel would have set it: fb.<subdomain index>.<creation ms>.<fbclid>, the
        // fbclid exactly as it came (Facebook compares it case-sensitively).
        fbc: conversion.fbclid ? `fb.1.${Date.parse(conversion.time)}.${conversion.fbclid}` : null,
      }),
      ...(conversion.value ? { custom_data: { value: conversion.value.amount, currency: conversion.value.currency } } : {}),
    }),
    requestOf: (entry) => ({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: [entry] }) }),
    outcomeOf(status, body, retryAfter) {
      const error = parsed(body)?.error as { message?: string; code?: number; is_transient?: boolean } | undefined;
      const message = error?.message ? `${error.message}${error.code ? ` (code ${error.code})` : ''}` : body;
      const outcome = transportOutcome(status, message, retryAfter);
      if (outcome?.kind === 'refused' && (error?.is_transient || GRAPH_TRANSIENT.has(error?.code ?? 0))) return { kind: 'retry', error: outcome.error };
      return outcome ?? { kind: 'sent' };
    },
    redact: redactor(token),
  };
}

// TikTok answers HTTP 200 with its own code: 0 is accepted, 40100 is throttling, 5xxxx and 40700
// are its own faults; any other code (a bad token, a bad field) would be refused again.
const tiktokRetries = (code: number) => code === 40100 || code === 40700 || code >= 50000;

/** TikTok's Events API 2.0: POST /open_api/v1.3/event/track/, the token in the Access-Token header. */
function tiktok(eventsUrl: string, pixelCode: string, token: string): Destination {
  const url = `${eventsUrl.replace(/\/+$/, '')}/open_api/v1.3/event/track/`;
  return {
    name: 'tiktok',
    entryOf: (conversion) => ({
      event: conversion.kind === 'purchase' ? 'CompletePayment' : 'CompleteRegistration',
      event_time: seconds(conversion.time),
      event_id: conversion.eventId,
      user: defined({ ttclid: conversion.ttclid, external_id: conversion.externalIdSha256, email: conversion.emailSha256 }),
      page: { url: conversion.url },
      ...(conversion.value ? { properties: { value: conversion.value.amount, currency: conversion.value.currency } } : {}),
    }),
    requestOf: (entry) => ({
      url,
      headers: { 'content-type': 'application/json', 'access-token': token },
      body: JSON.stringify({ event_source: 'web', event_source_id: pixelCode, data: [entry] }),
    }),
    outcomeOf(status, body, retryAfter) {
      const answer = parsed(body);
      const outcome = transportOutcome(status, String(answer?.message ?? body), retryAfter);
      if (outcome) return outcome;
      const code = Number(answer?.code);
      if (code === 0) return { kind: 'sent' };
      const error = `code ${answer?.code ?? 'missing'}: ${String(answer?.message ?? body)}`;
      return Number.isFinite(code) && tiktokRetries(code) ? { kind: 'retry', error } : { kind: 'refused', error };
    },
    redact: redactor(token),
  };
}

/**
 * The destinations whose tokens are configured; none when neither is. A token without its pixel id
 * stops the start: the conversions would have nowhere to go.
 */
export function destinationsOf(config: Config): Destination[] {
  const destinations: Destination[] = [];
  if (config.FACEBOOK_CAPI_TOKEN) {
    if (!config.FACEBOOK_PIXEL_ID) throw new ConfigError('config: FACEBOOK_PIXEL_ID: required with FACEBOOK_CAPI_TOKEN');
    destinations.push(facebook(config.FACEBOOK_GRAPH_URL, config.FACEBOOK_PIXEL_ID, config.FACEBOOK_CAPI_TOKEN));
  }
  if (config.TIKTOK_EVENTS_TOKEN) {
    if (!config.TIKTOK_PIXEL_ID) throw new ConfigError('config: TIKTOK_PIXEL_ID: required with TIKTOK_EVENTS_TOKEN');
    destinations.push(tiktok(config.TIKTOK_EVENTS_URL, config.TIKTOK_PIXEL_ID, config.TIKTOK_EVENTS_TOKEN));
  }
  return destinations;
}
