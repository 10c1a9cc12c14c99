import { QueryClient } from '@tanstack/react-query';
import { cleanup, render } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { CREDENTIAL_KEY, type Credential } from './api';
import { ConsoleApp } from './ConsoleApp';

// The console's pages against a fetch answering from a table, as console.test.tsx renders them: the
// pages of the role, audit and plans tests share it. A suite that imports it is torn down by it after
// each test: the console unmounted, fetch and any other stubbed global undone, the address back at "/".
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

export type Answer = { status?: number; body: unknown; headers?: Record<string, string> };
export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
}

export const calls: Call[] = [];

/** fetch answering from a table of "METHOD /path" → answer (or a function of the call); anything else 404s as an unbuilt call does. */
export function serve(routes: Record<string, Answer | ((call: Call) => Answer)>) {
  calls.length = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init: RequestInit = {}) => {
      const url = new URL(input, 'http://localhost');
      const call: Call = {
        method: init.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: (init.headers ?? {}) as Record<string, string>,
        body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body instanceof Blob ? await init.body.text() : undefined,
      };
      calls.push(call);
      const route = routes[`${call.method} ${call.path}`];
      const answer = typeof route === 'function' ? route(call) : (route ?? { status: 404, body: { code: 404, message: 'Not found', data: null } });
      return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200, headers: { 'content-type': 'application/json', ...answer.headers } });
    }),
  );
}

export const ok = (data: unknown, beside: object = {}): Answer => ({ body: { code: 200, message: 'ok', data, ...beside } });
/** A refusal as the API sends a domain error: HTTP 200, the envelope's code, the fields it names. */
export const refused = (code: number, message: string, fields?: Record<string, string>): Answer => ({ body: { code, message, data: fields ? { fields } : null } });

/** A member signed in to the console by email, whose role the pages do not ask. */
export const signedIn: Credential = { kind: 'session', token: 'T'.repeat(43), email: 'op@example.com' };

/** The member signed in to the console, and the answer that names their role (GET /api/admin/users?query=<id>). */
export const member = (role: 'operator' | 'admin'): { credential: Credential; roleAnswer: Answer } => ({
  credential: { kind: 'session', token: 'T'.repeat(43), email: `${role}@example.com`, id: `usr_${role}` },
  roleAnswer: ok({ items: [{ id: `usr_${role}`, kind: 'member', email: `${role}@example.com`, emailVerified: true, role, createdAt: '2026-11-01T00:00:00.000Z', registeredAt: null }], page: 1, size: 1, hasMore: false }),
});

/** The console at `path`, signed in with `credential` (without one, at the sign-in). */
export function open(path: string, credential?: Credential) {
  if (credential) localStorage.setItem(CREDENTIAL_KEY, JSON.stringify(credential));
  window.history.replaceState(null, '', path);
  render(<ConsoleApp queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} language="en" />);
}

export const lastCall = (method: string, path: string) => calls.filter((call) => call.method === method && call.path === path).at(-1);
