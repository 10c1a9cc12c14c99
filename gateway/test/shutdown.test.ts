import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSiteProcess, tempDir } from '@cliffhanger/platform/testing';

/** A download read slowly: resolves with the bytes once the whole body has arrived (or the socket ended early). */
function slowDownload(url: string, onFirstBytes: () => void): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        let received = 0;
        let first = true;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (first) {
            first = false;
            onFirstBytes();
          }
          // Read a chunk every 20 ms: a client on a slow phone connection.
          response.pause();
          setTimeout(() => response.resume(), 20);
        });
        response.on('end', () => resolve(received));
        response.on('error', reject);
        response.on('aborted', () => resolve(received));
      })
      .on('error', reject);
  });
}

describe('graceful shutdown', () => {
  it('SIGTERM during 10 logins and a slow download lets all of them finish, and /readyz answers 503 at once', async () => {
    const dataDir = tempDir('shutdown-');
    // A 3 MB cover-sized file under the public media prefix: a download that takes a while when read slowly.
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    fs.mkdirSync(path.join(dataDir, 'media', 'public', 'covers'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'media', 'public', 'covers', 'big.jpg'), big);
    const site = await startSiteProcess({
      dataDir,
      env: { DEMO: '0', LOG_LEVEL: 'warn', RATE_LIMIT_AUTH_PER_MINUTE: '1000', SHUTDOWN_DRAIN_SECONDS: '20', SHUTDOWN_ANNOUNCE_SECONDS: '5' },
      readyTimeoutMs: 120_000,
      readyWhat: 'the site to be ready',
    });
    onTestFinished(() => site.stop());
    const { child, origin: url } = site;
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    const guest = await fetch(`${url}/api/user`);
    const token = guest.headers.get('x-user-token')!;
    const email = `drain${Date.now()}@example.com`;
    const body = (value: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json', 'x-user-token': token }, body: JSON.stringify(value) });
    expect((await (await fetch(`${url}/api/user/register`, body({ email, password: 'drain-pass-1', confirmPassword: 'drain-pass-1' }))).json()).code).toBe(200);


    let downloading!: () => void;
    const started = new Promise<void>((resolve) => (downloading = resolve));
    const download = slowDownload(`${url}/media/public/covers/big.jpg`, downloading);
    await started;
    // Logins hash with argon2id: on two cores they are still in flight when the signal lands.
    const logins = Promise.allSettled(Array.from({ length: 10 }, () => fetch(`${url}/api/user/login`, body({ email, password: 'drain-pass-1' })).then((r) => r.json())));
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGTERM');
    // Well inside the announcement's 5 s, however loaded the machine: the server still takes requests
    // on kept-alive connections then (it stops accepting, and closes idle ones, only after it).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const readiness = await fetch(`${url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(readiness.headers.get('connection')).toBe('close');

    const answers = await logins;
    expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value.code : String(answer.reason)))).toEqual(Array(10).fill(200));
    expect(await download).toBe(big.length);
    expect(await exited).toBe(0);
  }, 200_000);
});
