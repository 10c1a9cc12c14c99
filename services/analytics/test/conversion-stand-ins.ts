import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a stand-in received and accepted as well-formed. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  query: URLSearchParams;
  entry: Record<string, any>;
}

/** What a stand-in answers one request with: a status and a JSON body, or no answer within `hangMs`. */
export type Answer = { status: number; body: unknown; headers?: Record<string, string> } | { hangMs: number };

export const FACEBOOK_PIXEL = '1234567890';
export const FACEBOOK_TOKEN = 'EAAB-test-capi-token-0123456789';
export const TIKTOK_PIXEL = 'CTTESTPIXEL42';
export const TIKTOK_TOKEN = 'tiktok-test-events-token-0123456789';

const graphError = (message: string, code: number) => ({ error: { message, type: 'OAuthException', code, fbtrace_id: 'AbCdEf' } });

/**
 * Facebook's and TikTok's endpoints as the APIs behave: each checks its path, token and body shape and
 * refuses what the real one would refuse, then answers what the test scripted for the conversion's
 * event id (success by default). Every accepted request is kept.
 */
function standIn(check: (path: string, query: URLSearchParams, headers: http.IncomingHttpHeaders, body: any) => Answer | { entry: Record<string, any> }, accepted: Answer) {
  const received: Received[] = [];
  const scripts = new Map<string, Answer[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // Checked below as a malformed body.
      }
      const checked = req.method === 'POST' ? check(url.pathname, url.searchParams, req.headers, body) : { status: 405, body: {} };
      const answer = 'entry' in checked ? (scripts.get(String(checked.entry.event_id))?.shift() ?? accepted) : checked;
      if ('entry' in checked) received.push({ path: url.pathname, headers: req.headers, query: url.searchParams, entry: checked.entry });
      if ('hangMs' in answer) {
        setTimeout(() => res.destroy(), answer.hangMs);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
    });
  });
  return {
    received,
    /** Requests about this event id so far. */
    of: (eventId: string) => received.filter((request) => request.entry.event_id === eventId),
    /** The next answers to requests about `eventId`, in order; then success. */
    script(eventId: string, ...answers: Answer[]) {
      scripts.set(eventId, answers);
    },
    async listen(): Promise<string> {
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function facebookStandIn() {
  return standIn((path, query, _headers, body) => {
    if (path !== `/v21.0/${FACEBOOK_PIXEL}/events`) return { status: 400, body: graphError('Unknown path components', 2500) };
    if (query.get('access_token') !== FACEBOOK_TOKEN) return { status: 400, body: graphError('Invalid OAuth access token', 190) };
    const entry = isObject(body) && Array.isArray(body.data) && body.data.length === 1 ? body.data[0] : null;
    const wellFormed =
      isObject(entry) &&
      typeof entry.event_name === 'string' &&
      Number.isInteger(entry.event_time) &&
      typeof entry.event_id === 'string' &&
      entry.action_source === 'website' &&
      typeof entry.event_source_url === 'string' &&
      isObject(entry.user_data) &&
      Object.keys(entry.user_data).length > 0;
    return wellFormed ? { entry } : { status: 400, body: graphError('Invalid parameter', 100) };
  }, { status: 200, body: { events_received: 1, messages: [], fbtrace_id: 'AbCdEf' } });
}

export function tiktokStandIn() {
  // TikTok answers HTTP 200 whatever happened; its own code says what.
  return standIn((path, _query, headers, body) => {
    if (path !== '/open_api/v1.3/event/track/') return { status: 404, body: { code: 40404, message: 'Not found' } };
    if (headers['access-token'] !== TIKTOK_TOKEN) return { status: 200, body: { code: 40001, message: 'Authentication error' } };
    const entry = isObject(body) && body.event_source === 'web' && body.event_source_id === TIKTOK_PIXEL && Array.isArray(body.data) && body.data.length === 1 ? body.data[0] : null;
    const wellFormed = isObject(entry) && typeof entry.event === 'string' && Number.isInteger(entry.event_time) && typeof entry.event_id === 'string' && isObject(entry.user);
    return wellFormed ? { entry } : { status: 200, body: { code: 40002, message: 'Invalid parameters' } };
  }, { status: 200, body: { code: 0, message: 'OK', request_id: 'req-1', data: {} } });
}

export type StandIn = ReturnType<typeof facebookStandIn>;
