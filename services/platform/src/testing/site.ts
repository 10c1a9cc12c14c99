import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeTarget, type ComposeOptions, type Composition, type Registry } from '../modules/compose.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { ServiceModule } from '../modules/module.ts';
import { startPlatform, stopPlatform, type Platform } from '../platform.ts';
import { eventually, openTestPlatform } from './fixtures.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface Answer {
  status: number;
  headers: Headers;
  code: number;
  message: string;
  data: any;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as is, with the content type of `headers` (by default JSON for text, application/octet-stream for bytes). */
  raw?: Buffer | string;
  headers?: Record<string, string>;
}

export interface SiteOptions {
  /** The modules the site runs (`TARGET=all` of this registry); the user module answers who calls. */
  modules: ServiceModule<any>[];
  env?: Record<string, string>;
  /** Sets ADMIN_TOKEN so `site.admin` works (default true). */
  adminApi?: boolean;
  /** Starts the modules' background work (default true). */
  background?: boolean;
  /** The storefront's pages, as the gateway serves them after the API. */
  pages?: ComposeOptions['pages'];
  /** Another mailer than the files under DATA_DIR/mail (one that blocks, or records). */
  mailer?: Mailer;
}

// Suites call from one address many times a minute; a suite about limits sets its own.
const generousLimits = {
  RATE_LIMIT_AUTH_PER_MINUTE: '1000',
  RATE_LIMIT_GUEST_PER_MINUTE: '100000',
  RATE_LIMIT_HISTORY_PER_MINUTE: '100000',
  RATE_LIMIT_PIXEL_PER_MINUTE: '100000',
  // Pixel hits are written a moment after they arrive; suites wait for them with `eventually`.
  PIXEL_FLUSH_MS: '20',
  // Heartbeats too: a viewer reads their own at once anyway; events and others' reads follow the flush.
  HISTORY_FLUSH_MS: '20',
};

/**
 * A site as `npm start` composes it, from the modules a suite needs, on a fresh database (PGlite, or
 * the real server under npm test's second pass), listening on a free loopback port; with typed calls
 * of the public and admin API (docs/api.md), as PeerTube's server commands are.
 */
export async function startSite(options: SiteOptions) {
  const env = { ...generousLimits, ...(options.adminApi === false ? {} : { ADMIN_TOKEN }), ...options.env };
  const platform: Platform = await openTestPlatform(env, options.mailer ? { mailer: options.mailer } : {});
  const composition: Composition = await composeTarget(platform, { modules: options.modules, identity: 'user' } satisfies Registry, { pages: options.pages });
  await startPlatform(platform);
  const background =
    options.background === false ? { stop: async () => void (await Promise.all(composition.edges.map((edge) => edge.stop()))) } : composition.startBackground();
  let backgroundStopped: Promise<void> | null = null;
  const stopBackground = () => (backgroundStopped ??= Promise.resolve(background.stop()));
  const server = http.createServer(composition.listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['x-user-token'] = options.token;
    let body: BodyInit | undefined;
    if (options.raw !== undefined) {
      headers['content-type'] ??= typeof options.raw === 'string' ? 'application/json' : 'application/octet-stream';
      body = typeof options.raw === 'string' ? options.raw : new Uint8Array(options.raw);
    } else if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(url + path, { method, headers, body });
    return { status: response.status, headers: response.headers, ...((await response.json()) as Omit<Answer, 'status' | 'headers'>) };
  }
  const admin = (method: string, path: string, options: CallOptions = {}) =>
    call(method, path, { ...options, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...options.headers } });

  return {
    url,
    platform,
    /** The modules built in this process, by name: their clients, for a suite that checks a rule directly. */
    instances: composition.instances,
    call,
    admin,
    async guest(): Promise<string> {
      return (await call('GET', '/api/user')).headers.get('x-user-token')!;
    },
    /** Creates a series through the admin API and answers its id. */
    async series(body: Record<string, unknown>): Promise<string> {
      const answer = await admin('POST', '/api/admin/videos', { body });
      if (answer.code !== 200) throw new Error(`series: ${answer.message}`);
      return answer.data.video.id;
    },
    async upload(videoId: string, bytes: Buffer, query = ''): Promise<Answer> {
      return admin('POST', `/api/admin/videos/${videoId}/episodes${query}`, { raw: bytes, headers: { 'content-type': 'video/mp4' } });
    },
    async settled(episodeId: string, timeoutMs = 150_000): Promise<any> {
      return eventually(async () => {
        const { data } = await admin('GET', `/api/admin/episodes/${episodeId}`);
        return data.status === 'ready' || data.status === 'failed' ? data : null;
      }, timeoutMs, `episode ${episodeId} to settle`);
    },
    /** Stops the modules' background work as a SIGTERM does, the database still open to look at what it left. */
    stopBackground,
    async close() {
      server.closeAllConnections();
      server.close();
      await stopBackground();
      await stopPlatform(platform);
    },
  };
}

export type Site = Awaited<ReturnType<typeof startSite>>;
