import { execFile } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { startPlatform, stopPlatform, type Platform } from '@cliffhanger/platform';
import { eventually, openTestPlatform, tempDir } from '@cliffhanger/platform/testing';
import { ffmpegPath } from '@cliffhanger/transcoder';
import { composeEmbedded } from '../../../gateway/src/compose.ts';

const run = promisify(execFile);

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface Answer {
  status: number;
  headers: Headers;
  code: number;
  message: string;
  data: any;
}

/** The whole site as `npm start` composes it, on a fresh database, listening on a free port. */
export async function startSite(env: Record<string, string> = {}, options: { adminApi: boolean } = { adminApi: true }) {
  const platform: Platform = await openTestPlatform(options.adminApi ? { ADMIN_TOKEN, ...env } : env);
  const { app, catalog } = await composeEmbedded(platform, { storefrontDir: null });
  await startPlatform(platform);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function call(method: string, path: string, options: { token?: string; body?: unknown; raw?: Buffer; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['x-user-token'] = options.token;
    let body: BodyInit | undefined;
    if (options.raw) {
      headers['content-type'] ??= 'application/octet-stream';
      body = new Uint8Array(options.raw);
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(url + path, { method, headers, body });
    return { status: response.status, headers: response.headers, ...((await response.json()) as Omit<Answer, 'status' | 'headers'>) };
  }
  const admin = (method: string, path: string, options: Parameters<typeof call>[2] = {}) =>
    call(method, path, { ...options, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...options.headers } });

  const site = {
    url,
    platform,
    catalog,
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
    async settled(episodeId: string, timeoutMs = 60_000): Promise<any> {
      return eventually(async () => {
        const { data } = await admin('GET', `/api/admin/episodes/${episodeId}`);
        return data.status === 'ready' || data.status === 'failed' ? data : null;
      }, timeoutMs, `episode ${episodeId} to settle`);
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await stopPlatform(platform);
    },
  };
  return site;
}

export type Site = Awaited<ReturnType<typeof startSite>>;

/** A tiny real episode: a test pattern with a tone, small enough for two shared cores. */
export async function makeClip(seconds = 2, width = 240, height = 426): Promise<Buffer> {
  const file = path.join(tempDir('catalog-clip-'), 'clip.mp4');
  await run(ffmpegPath(), [
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=24:duration=${seconds}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file,
  ]);
  const bytes = fs.readFileSync(file);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return bytes;
}

/** Bytes that are no video at all: uploads of them fail at once, which is all a listing test needs. */
export const notAVideo = Buffer.from('this is a text file, not a video\n'.repeat(20));
