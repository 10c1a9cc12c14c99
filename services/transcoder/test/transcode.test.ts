import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidMediaError, planLadder, transcodeToHls, type TranscodeResult } from '../src/index.ts';
import { isJpeg, makeClip, probeStreams, scratchDir } from './media.ts';

const readText = (file: string) => readFile(file, 'utf8');
const extinfs = (playlist: string) => playlist.split('\n').filter((l) => l.startsWith('#EXTINF:'));
const segmentNames = (playlist: string) => playlist.split('\n').filter((l) => l.endsWith('.ts'));

function variants(master: string) {
  const lines = master.trim().split('\n');
  return lines.flatMap((line, i) => {
    if (!line.startsWith('#EXT-X-STREAM-INF:')) return [];
    const attr = (name: string) => new RegExp(`[:,]${name}=("[^"]*"|[^,]*)`).exec(line)?.[1]?.replace(/"/g, '');
    return [{
      uri: lines[i + 1]!,
      bandwidth: Number(attr('BANDWIDTH')),
      averageBandwidth: Number(attr('AVERAGE-BANDWIDTH')),
      resolution: attr('RESOLUTION'),
      codecs: attr('CODECS'),
    }];
  });
}

describe('transcodeToHls', () => {
  let dir: Awaited<ReturnType<typeof scratchDir>>;
  let source: string;
  let mediaDir: string;
  let outputDir: string;
  let result: TranscodeResult;
  const progress: number[] = [];

  beforeAll(async () => {
    dir = await scratchDir();
    source = join(dir.path, 'episode.mp4');
    // A space and a percent sign: neither may be split into two arguments or read as a template.
    mediaDir = join(dir.path, 'media 100%');
    outputDir = join(mediaDir, 'episode-1');
    await makeClip(source, { seconds: 5, width: 480, height: 854 });
    result = await transcodeToHls({
      input: source, outputDir, segmentSeconds: 2, preset: 'ultrafast', onProgress: (p) => progress.push(p),
    });
  });
  afterAll(() => dir.remove());

  it('reports the source duration, size and one rendition per planned rung', () => {
    expect(result.durationSeconds).toBeCloseTo(5, 1);
    expect([result.width, result.height]).toEqual([480, 854]);
    expect(result.renditions.map((r) => [r.name, r.width, r.height, r.codecs, r.playlist])).toEqual(
      planLadder(480, 854).map((r) => [r.name, r.width, r.height, r.codecs, `${r.name}/index.m3u8`]),
    );
    expect(result).toMatchObject({ master: 'master.m3u8', poster: 'poster.jpg' });
  });

  it('the master playlist declares every rung with its resolution, CODECS and honest bandwidth', async () => {
    const master = await readText(join(outputDir, result.master));
    expect(master).toMatch(/^#EXTM3U\n#EXT-X-VERSION:\d+\n/);
    const declared = variants(master);
    expect(declared[0]!.uri, 'players start on the first variant').toBe('480p/index.m3u8');
    expect(declared.map((v) => v.uri).sort()).toEqual(result.renditions.map((r) => r.playlist).sort());
    for (const r of result.renditions) {
      const v = declared.find((d) => d.uri === r.playlist)!;
      expect(v).toMatchObject({ resolution: `${r.width}x${r.height}`, codecs: r.codecs, bandwidth: r.bandwidth });
      expect(v.bandwidth).toBeGreaterThanOrEqual(v.averageBandwidth);
      // Over the whole clip the rung's bytes on disk must match the average it declares.
      const playlist = await readText(join(outputDir, r.playlist));
      const bytes = (await Promise.all(segmentNames(playlist).map((s) => stat(join(outputDir, r.name, s))))).reduce((n, s) => n + s.size, 0);
      expect(v.averageBandwidth).toBeCloseTo((bytes * 8) / extinfs(playlist).reduce((t, l) => t + parseFloat(l.slice(8)), 0), -2);
    }
  });

  it('every rung is a VOD playlist in its own folder, cut at the same instants as the others', async () => {
    const playlists = await Promise.all(result.renditions.map((r) => readText(join(outputDir, r.playlist))));
    for (const p of playlists) {
      expect(p).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
      expect(p).toContain('#EXT-X-ENDLIST');
      expect(segmentNames(p)[0]).toBe('seg_000.ts');
    }
    const cuts = playlists.map(extinfs);
    expect(cuts[0]!.length).toBeGreaterThanOrEqual(3);
    for (const c of cuts) expect(c).toEqual(cuts[0]);
    for (const line of cuts[0]!.slice(0, -1)) expect(parseFloat(line.slice(8))).toBeCloseTo(2, 2);
  });

  it('segments decode as H.264 at the declared size, profile level and AAC stereo audio', async () => {
    for (const r of result.renditions) {
      const streams = await probeStreams(join(outputDir, r.name, 'seg_001.ts'));
      const video = streams.find((s) => s.codec_type === 'video')!;
      const audio = streams.find((s) => s.codec_type === 'audio')!;
      expect(video).toMatchObject({ codec_name: 'h264', width: r.width, height: r.height });
      expect(video.level).toBe(parseInt(r.codecs.slice(9, 11), 16));
      expect(audio).toMatchObject({ codec_name: 'aac', channels: 2 });
    }
  });

  it('a player reading the master playlist finds every rung with its picture and sound', async () => {
    const streams = await probeStreams(join(outputDir, result.master));
    const pictures = streams.filter((s) => s.codec_type === 'video').map((s) => `${s.width}x${s.height}`);
    expect(pictures.sort()).toEqual(result.renditions.map((r) => `${r.width}x${r.height}`).sort());
    expect(streams.filter((s) => s.codec_name === 'aac')).toHaveLength(result.renditions.length);
  });

  it('writes a JPEG poster at the top rung size', async () => {
    const poster = join(outputDir, result.poster);
    expect(await isJpeg(poster)).toBe(true);
    const [picture] = await probeStreams(poster);
    const top = result.renditions.at(-1)!;
    expect(picture).toMatchObject({ width: top.width, height: top.height });
  });

  it('reports progress climbing to 100', () => {
    expect(progress.length).toBeGreaterThan(2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(100);
  });

  it('running the job again leaves exactly one ladder and nothing beside it', async () => {
    await writeFile(join(outputDir, 'stale-from-an-older-ladder.txt'), 'x');
    await transcodeToHls({ input: source, outputDir, segmentSeconds: 2, preset: 'ultrafast' });
    expect(await readdir(mediaDir)).toEqual(['episode-1']);
    expect((await readdir(outputDir)).sort()).toEqual([...result.renditions.map((r) => r.name), 'master.m3u8', 'poster.jpg'].sort());
  });

  it('a rerun clears what a crashed attempt left behind', async () => {
    await mkdir(join(mediaDir, '.episode-1.tmp-crashed', '240p'), { recursive: true });
    await transcodeToHls({ input: source, outputDir, segmentSeconds: 2, preset: 'ultrafast' });
    expect(await readdir(mediaDir)).toEqual(['episode-1']);
  });

  it('a corrupt re-upload fails as invalid media and leaves the published ladder alone', async () => {
    const bad = join(dir.path, 'bad.mp4');
    await writeFile(bad, randomBytes(32 * 1024));
    await expect(transcodeToHls({ input: bad, outputDir })).rejects.toBeInstanceOf(InvalidMediaError);
    expect(await readdir(mediaDir)).toEqual(['episode-1']);
    expect(await readText(join(outputDir, 'master.m3u8'))).toContain('#EXT-X-STREAM-INF');
  });
});

describe('transcodeToHls with unusual sources', () => {
  let dir: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    dir = await scratchDir();
  });
  afterAll(() => dir.remove());

  it.each([
    ['random bytes', () => randomBytes(64 * 1024)],
    ['a text file', () => 'Previously on Cliffhanger...\n'.repeat(100)],
  ])('%s rejects with InvalidMediaError and leaves nothing behind', async (_, content) => {
    const input = join(dir.path, 'upload.bin');
    await writeFile(input, content());
    const media = join(dir.path, 'media');
    await expect(transcodeToHls({ input, outputDir: join(media, 'ep') })).rejects.toThrow(InvalidMediaError);
    expect(await readdir(media).catch(() => [])).toEqual([]);
  });

  it('a silent phone clip stored sideways comes out vertical with an AAC track in every rung', async () => {
    const input = join(dir.path, 'silent.mp4');
    await makeClip(input, { seconds: 2.5, width: 568, height: 320, audio: false, rotate: 90 });
    const outputDir = join(dir.path, 'silent');
    const result = await transcodeToHls({ input, outputDir, segmentSeconds: 2, preset: 'ultrafast' });
    expect(result.renditions.map((r) => `${r.name} ${r.width}x${r.height}`)).toEqual(['240p 240x426', '320p 320x568']);
    for (const r of result.renditions) {
      const streams = await probeStreams(join(outputDir, r.name, 'seg_000.ts'));
      expect(streams.find((s) => s.codec_type === 'video')).toMatchObject({ width: r.width, height: r.height });
      expect(streams.find((s) => s.codec_type === 'audio')).toMatchObject({ codec_name: 'aac' });
    }
  });

  it('segment lengths outside 2-6 s are refused before any work', async () => {
    await expect(transcodeToHls({ input: 'x.mp4', outputDir: join(dir.path, 'x'), segmentSeconds: 10 })).rejects.toThrow(RangeError);
  });
});
