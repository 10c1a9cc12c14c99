import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '@cliffhanger/platform';
import { ADMIN_TOKEN, makeClip } from '@cliffhanger/platform/testing';
import { ffmpegTools } from '@cliffhanger/transcoder';
import { adminOf, startCatalogSite, type Site } from './site.ts';
import { tusClient } from './tus.ts';

let site: Site;
let clip: Buffer;
const operator = () => tusClient(site.url, { authorization: `Bearer ${ADMIN_TOKEN}` });
const uploadsDir = () => path.join(site.platform.config.dataDir, 'incoming', 'tus');

beforeAll(async () => {
  [site, clip] = await Promise.all([startCatalogSite(), makeClip(ffmpegTools())]);
}, 60_000);

afterAll(() => site?.close());

describe('resumable episode uploads (tus)', () => {
  it('resumes an upload cut halfway from the server offset, re-sending at most a chunk, and adds the episode once', async () => {
    const video = await site.series({ title: 'Cut Wire' });
    const tus = operator();
    const chunk = Math.ceil(clip.length / 4);
    const created = await tus.create(clip.length, { seriesId: video, number: '1', title: 'The Signal' });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect(location).toMatch(/^\/api\/admin\/uploads\/\w+$/);

    expect((await tus.patch(location, 0, clip.subarray(0, chunk))).status).toBe(204);
    // Half the next chunk reaches the server's file, then the connection drops.
    const half = Math.floor(chunk / 2);
    const stored = path.join(uploadsDir(), path.basename(location));
    await tus.droppedPatch(location, chunk, clip.subarray(chunk, 2 * chunk), half, () => fs.statSync(stored).size >= chunk + half);
    const offset = (await tus.offset(location))!;
    expect(offset).toBe(chunk + half);

    const last = await tus.sendFrom(location, clip, offset, chunk);
    expect({ status: last.status, body: await last.text() }).toEqual({ status: 204, body: '' });
    expect(last.headers.get('episode-id')).toBe(`${video}-ep1`);
    expect(tus.sent - clip.length).toBeLessThanOrEqual(chunk);

    // The bytes moved to media storage; the finished upload is gone, a late retry of it adds nothing.
    expect(await tus.offset(location)).toBeNull();
    expect((await tus.patch(location, clip.length, Buffer.alloc(0))).status).toBe(404);
    expect(await site.settled(`${video}-ep1`)).toMatchObject({ status: 'ready', title: 'The Signal', number: 1 });
    const series = await site.admin('GET', `/api/admin/videos/${video}`);
    expect(series.data.episodes).toHaveLength(1);
    expect(series.data.episodeCount).toBe(1);
  }, 120_000);

  it('adds the episode once when an upload finishes twice', async () => {
    const video = await site.series({ title: 'Echo Finish' });
    const admin = adminOf(site);
    const copies = await Promise.all(
      [1, 2].map(async (copy) => {
        const file = path.join(site.platform.config.dataDir, `echo-${copy}`);
        await fs.promises.writeFile(file, clip);
        return file;
      }),
    );
    const episodes = await Promise.all(copies.map((file) => admin.addEpisode(systemContext(), video, { file, number: 1, uploadId: 'same-tus-upload' })));
    expect(episodes.map((episode) => episode.id)).toEqual([`${video}-ep1`, `${video}-ep1`]);
    expect((await admin.series(video)).episodeCount).toBe(1);
    expect(['pending', 'processing', 'ready']).toContain((await admin.episode(`${video}-ep1`)).status);
  });

  it('refuses an upload whose metadata names no series, a bad number or an episode that exists, saying why', async () => {
    const video = await site.series({ title: 'Strict Metadata' });
    await site.upload(video, clip, '?number=1');
    const tus = operator();
    const before = fs.existsSync(uploadsDir()) ? fs.readdirSync(uploadsDir()) : [];
    const cases = [
      [{ seriesId: 'no-such-series', number: '2' }, 404, 'No such series: no-such-series'],
      [{ seriesId: video, number: 'two' }, 400, 'number must be a whole number'],
      [{ seriesId: video, number: '0' }, 400, 'number must be a whole number'],
      [{ seriesId: video }, 400, 'number must be a whole number'],
      [{ number: '2' }, 400, 'Upload-Metadata needs seriesId'],
      [{ seriesId: video, number: '1' }, 409, 'Episode 1 of this series exists already'],
    ] as const;
    for (const [metadata, status, message] of cases) {
      const answer = await tus.create(clip.length, metadata);
      expect({ metadata, status: answer.status }).toEqual({ metadata, status });
      expect(await answer.text()).toContain(message);
    }
    expect(fs.existsSync(uploadsDir()) ? fs.readdirSync(uploadsDir()) : []).toEqual(before);
  });

  it('fills in a planned episode', async () => {
    const video = await site.series({ title: 'Planned Drop' });
    await adminOf(site).planEpisodes(video, 2);
    const tus = operator();
    const location = (await tus.create(clip.length, { seriesId: video, number: '2' })).headers.get('location')!;
    expect((await tus.sendFrom(location, clip, 0, clip.length)).headers.get('episode-id')).toBe(`${video}-ep2`);
    const episode = (await site.admin('GET', `/api/admin/episodes/${video}-ep2`)).data;
    expect(episode).toMatchObject({ number: 2, title: 'Episode 2' });
    expect(['pending', 'processing', 'ready']).toContain(episode.status);
  });

  it('cancels an upload on DELETE, its bytes removed', async () => {
    const video = await site.series({ title: 'Called Off' });
    const tus = operator();
    const location = (await tus.create(clip.length, { seriesId: video, number: '1' })).headers.get('location')!;
    await tus.patch(location, 0, clip.subarray(0, 100));
    expect((await tus.remove(location)).status).toBe(204);
    expect(await tus.offset(location)).toBeNull();
    expect(fs.readdirSync(uploadsDir()).filter((name) => location.endsWith(name.replace(/\.json$/, '')))).toEqual([]);
    expect((await site.admin('GET', `/api/admin/videos/${video}`)).data.episodes).toEqual([]);
  });

  it('refuses to go on with an upload left unfinished past its expiry', async () => {
    const video = await site.series({ title: 'Too Late' });
    const tus = operator();
    const created = await tus.create(clip.length, { seriesId: video, number: '1' });
    expect(Date.parse(created.headers.get('upload-expires')!)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const location = created.headers.get('location')!;
    await tus.patch(location, 0, clip.subarray(0, 100));
    // Its creation moved two days back, as if the operator had walked away.
    const info = path.join(uploadsDir(), `${path.basename(location)}.json`);
    const upload = JSON.parse(await fs.promises.readFile(info, 'utf8')) as { creation_date: string };
    await fs.promises.writeFile(info, JSON.stringify({ ...upload, creation_date: new Date(Date.now() - 2 * 24 * 3600_000).toISOString() }));
    expect((await tus.patch(location, 100, clip.subarray(100))).status).toBe(410);
    expect((await site.admin('GET', `/api/admin/videos/${video}`)).data.episodes).toEqual([]);
  });

  it('answers 401 to every tus call without admin auth, and 403 to a wrong token', async () => {
    const video = await site.series({ title: 'Locked Door' });
    const location = (await operator().create(clip.length, { seriesId: video, number: '1' })).headers.get('location')!;
    const nobody = tusClient(site.url);
    expect((await nobody.create(clip.length, { seriesId: video, number: '2' })).status).toBe(401);
    expect((await fetch(new URL(location, site.url), { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } })).status).toBe(401);
    expect((await nobody.patch(location, 0, clip)).status).toBe(401);
    expect((await nobody.remove(location)).status).toBe(401);
    expect((await tusClient(site.url, { authorization: 'Bearer wrong-token-wrong-token' }).create(10, { seriesId: video, number: '2' })).status).toBe(403);
    expect(await operator().offset(location)).toBe(0);
  });
});
