import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startPlatform, stopPlatform, type Platform } from '@cliffhanger/platform';
import { openTestPlatform } from '@cliffhanger/platform/testing';
import type { CatalogDirectory, VideoCard } from '@cliffhanger/user';
import { composeEmbedded } from '../src/compose.ts';

/** Videos the account tests favorite and watch, until they run against the real catalog. */
export const videos: VideoCard[] = Array.from({ length: 30 }, (_, i) => ({
  id: `video-${i + 1}`,
  title: `Series ${i + 1}`,
  cover: `/media/public/covers/video-${i + 1}.jpg`,
  tags: ['Romance'],
  episodeCount: 10,
  playCount: 0,
}));

export const fixtureCatalog: CatalogDirectory = {
  async cardsOf(ids) {
    return new Map(videos.filter((video) => ids.includes(video.id)).map((video) => [video.id, video]));
  },
  async episodeRef(episodeId) {
    const match = /^video-(\d+)-ep-(\d+)$/.exec(episodeId);
    return match && Number(match[1]) <= videos.length ? { videoId: `video-${match[1]}`, number: Number(match[2]) } : null;
  },
};

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestGateway {
  url: string;
  platform: Platform;
  call(method: string, path: string, options?: CallOptions): Promise<{ status: number; headers: Headers; code: number; message: string; data: any }>;
  guest(): Promise<string>;
  close(): Promise<void>;
}

/** The real gateway and services on a fresh database, listening on a free loopback port. */
export async function startTestGateway(env: Record<string, string> = {}, catalog: CatalogDirectory = fixtureCatalog): Promise<TestGateway> {
  const platform = await openTestPlatform({ RATE_LIMIT_AUTH_PER_MINUTE: '1000', ...env });
  const { app } = await composeEmbedded(platform, { catalog, storefrontDir: null });
  await startPlatform(platform);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const call: TestGateway['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (options.token) headers['x-user-token'] = options.token;
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const response = await fetch(url + path, { method, headers, body });
    const envelope = await response.json();
    return { status: response.status, headers: response.headers, ...envelope };
  };

  return {
    url,
    platform,
    call,
    async guest() {
      const answer = await call('GET', '/api/user');
      return answer.headers.get('x-user-token')!;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await stopPlatform(platform);
    },
  };
}
