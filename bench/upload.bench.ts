// A resumable (tus) episode upload through the whole site, its connection dropped once half-way,
// against one plain request of the same file to the whole-file endpoint. Prints the bytes the
// resume sent again (at most one chunk) and both throughputs. UPLOAD_BENCH_MB shrinks the file
// (200 MB by default).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { tusClient } from '../services/catalog/test/tus.ts';
import { startSite } from './site.ts';

const ADMIN = { authorization: 'Bearer bench-site-admin-token-0123456789abcdef' };
const CHUNK = 8 * 1024 ** 2;
const megabytes = Number(process.env.UPLOAD_BENCH_MB ?? 200);
const mbps = (bytes: number, ms: number) => bytes / 1024 ** 2 / (ms / 1000);

const site = await startSite();
try {
  const tusDir = path.join(path.dirname(site.mediaDir), 'incoming', 'tus');
  const answer = await fetch(`${site.origin}/api/admin/videos`, {
    method: 'POST',
    headers: { ...ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Upload Bench' }),
  });
  const seriesId = ((await answer.json()) as { data: { video: { id: string } } }).data.video.id;
  let number = 0;

  /** One request with the whole file, as the whole-file endpoint takes it. */
  async function plainUpload(file: Buffer): Promise<number> {
    const started = performance.now();
    const answer = await fetch(`${site.origin}/api/admin/videos/${seriesId}/episodes?number=${++number}`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(file),
    });
    const { code, message } = (await answer.json()) as { code: number; message: string };
    if (code !== 200) throw new Error(`whole-file upload: ${code} ${message}`);
    return performance.now() - started;
  }

  /** tus in CHUNK-sized PATCHes; with `drop`, the PATCH at the middle dies after half its bytes reached the server. */
  async function resumableUpload(file: Buffer, drop: boolean): Promise<{ ms: number; resent: number }> {
    const tus = tusClient(site.origin, ADMIN);
    const started = performance.now();
    const created = await tus.create(file.length, { seriesId, number: String(++number), title: 'Bench' });
    if (created.status !== 201) throw new Error(`tus creation: ${created.status} ${await created.text()}`);
    const location = created.headers.get('location')!;
    let offset = 0;
    if (drop) {
      const middle = Math.floor(file.length / 2 / CHUNK) * CHUNK;
      const cut = Math.min(CHUNK, file.length - middle) >> 1;
      const last = await tus.sendFrom(location, file.subarray(0, middle), 0, CHUNK);
      if (middle > 0 && last.status !== 204) throw new Error(`tus PATCH: ${last.status} ${await last.text()}`);
      const stored = path.join(tusDir, path.basename(location));
      await tus.droppedPatch(location, middle, file.subarray(middle, middle + CHUNK), cut, () => fs.statSync(stored).size >= middle + cut);
      offset = (await tus.offset(location))!;
    }
    const last = await tus.sendFrom(location, file, offset, CHUNK);
    if (!last.headers.get('episode-id')) throw new Error(`tus upload did not finish: ${last.status} ${await last.text()}`);
    return { ms: performance.now() - started, resent: tus.sent - file.length };
  }

  const file = randomBytes(megabytes * 1024 ** 2);
  // Warm both paths with a chunk's worth.
  await plainUpload(file.subarray(0, CHUNK));
  await resumableUpload(file.subarray(0, CHUNK), false);

  const plainMs = await plainUpload(file);
  const { ms, resent } = await resumableUpload(file, true);
  const ratio = mbps(file.length, ms) / mbps(file.length, plainMs);
  console.log(
    `upload: tus with 1 dropped connection ${mbps(file.length, ms).toFixed(1)} MB/s, ${(resent / 1024 ** 2).toFixed(1)} MB re-sent (chunk ${CHUNK / 1024 ** 2} MB${resent <= CHUNK ? ', ok' : ', MORE THAN A CHUNK'}) / ` +
      `whole file in one request ${mbps(file.length, plainMs).toFixed(1)} MB/s = ${ratio.toFixed(2)} (${megabytes} MB; goal: re-sent <= one chunk)`,
  );
  if (resent > CHUNK) process.exitCode = 1;
} finally {
  await site.stop();
}
