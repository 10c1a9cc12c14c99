import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip } from '@cliffhanger/platform/testing';
import {
  AUDIO, FIRST_SEGMENT_SECONDS, ffmpegTools, InvalidMediaError, planLadder, SEGMENT_SECONDS, transcodeToHls, type TranscodeResult,
} from '../src/index.ts';
import { isJpeg, probeStreams, scratchDir, tools } from './media.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const run = promisify(execFile);
const readText = (file: string) => readFile(file, 'utf8');
const extinfs = (playlist: string) => playlist.split('\n').filter((l) => l.startsWith('#EXTINF:'));
const segmentNames = (playlist: string) => playlist.split('\n').filter((l) => l.endsWith('.ts'));
const seconds = (playlist: string) => extinfs(playlist).map((l) => parseFloat(l.slice('#EXTINF:'.length)));
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** Bits per second of a media playlist over its whole length, from its segments' sizes on disk. */
async function bitsPerSecondOnDisk(ladder: string, playlistPath: string): Promise<number> {
  const playlist = await readText(join(ladder, playlistPath));
  const folder = dirname(join(ladder, playlistPath));
  const bytes = sum((await Promise.all(segmentNames(playlist).map((s) => stat(join(folder, s))))).map((s) => s.size));
  return (bytes * 8) / sum(seconds(playlist));
}

/** The master's EXT-X-MEDIA renditions, each with its attributes. */
function mediaRenditions(master: string): Record<string, string>[] {
  return master.split('\n').filter((l) => l.startsWith('#EXT-X-MEDIA:')).map((line) =>
    Object.fromEntries([...line.slice('#EXT-X-MEDIA:'.length).matchAll(/([A-Z-]+)=("[^"]*"|[^,]*)/g)].map(([, k, v]) => [k!, v!.replace(/"/g, '')])),
  );
}

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
      audio: attr('AUDIO'),
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
    await makeClip(tools, { file: source, rate: 30, seconds: 5, width: 480, height: 854 });
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
      // Over the whole clip the rung's bytes on disk, with the shared sound's, must match the average it declares.
      const onDisk = (await bitsPerSecondOnDisk(outputDir, r.playlist)) + (await bitsPerSecondOnDisk(outputDir, 'audio/index.m3u8'));
      expect(v.averageBandwidth / onDisk).toBeCloseTo(1, 2);
    }
  });

  it('the master playlist declares one audio group that every rung plays with, and CODECS naming both', async () => {
    const master = await readText(join(outputDir, result.master));
    const audio = mediaRenditions(master);
    expect(audio).toEqual([
      { TYPE: 'AUDIO', 'GROUP-ID': 'aud', NAME: 'Main', DEFAULT: 'YES', AUTOSELECT: 'YES', CHANNELS: '2', URI: 'audio/index.m3u8' },
    ]);
    expect(master.indexOf('#EXT-X-MEDIA:'), 'renditions come before the variants that name them').toBeLessThan(master.indexOf('#EXT-X-STREAM-INF:'));
    for (const v of variants(master)) {
      expect(v.audio).toBe('aud');
      // RFC 6381: avc1.PPCCLL (profile, constraints, level in hex), then AAC-LC.
      expect(v.codecs).toMatch(/^avc1\.(42E0|4D40|6400)[0-9A-F]{2},mp4a\.40\.2$/);
    }
    const sound = await readText(join(outputDir, 'audio/index.m3u8'));
    expect(sound).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(sound).toContain('#EXT-X-ENDLIST');
    expect(sum(seconds(sound))).toBeCloseTo(5, 0);
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

  it('rung segments hold H.264 pictures at the declared size and profile level, and no sound', async () => {
    for (const r of result.renditions) {
      const playlist = await readText(join(outputDir, r.playlist));
      for (const segment of segmentNames(playlist)) {
        const streams = await probeStreams(join(outputDir, r.name, segment));
        expect(streams.map((s) => s.codec_type), `${r.name}/${segment}`).toEqual(['video']);
        expect(streams[0]).toMatchObject({ codec_name: 'h264', width: r.width, height: r.height });
        expect(streams[0]!.level).toBe(parseInt(r.codecs.slice(9, 11), 16));
      }
    }
  });

  it('the shared audio rendition holds AAC stereo sound only', async () => {
    const playlist = await readText(join(outputDir, 'audio/index.m3u8'));
    for (const segment of segmentNames(playlist)) {
      const streams = await probeStreams(join(outputDir, 'audio', segment));
      expect(streams).toEqual([expect.objectContaining({ codec_type: 'audio', codec_name: 'aac', channels: 2 })]);
    }
  });

  it('a player reading the master playlist finds every rung with its picture and sound', async () => {
    const streams = await probeStreams(join(outputDir, result.master));
    const pictures = streams.filter((s) => s.codec_type === 'video').map((s) => `${s.width}x${s.height}`);
    expect(pictures.sort()).toEqual(result.renditions.map((r) => `${r.width}x${r.height}`).sort());
    expect(streams.filter((s) => s.codec_name === 'aac').length).toBeGreaterThanOrEqual(1);
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
    expect((await readdir(outputDir)).sort()).toEqual([...result.renditions.map((r) => r.name), 'audio', 'master.m3u8', 'poster.jpg'].sort());
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

  it('a silent phone clip stored sideways comes out vertical, its rungs sharing an AAC track of silence', async () => {
    const input = join(dir.path, 'silent.mp4');
    await makeClip(tools, { file: input, rate: 30, seconds: 2.5, width: 568, height: 320, audio: false, rotate: 90 });
    const outputDir = join(dir.path, 'silent');
    const result = await transcodeToHls({ input, outputDir, segmentSeconds: 2, preset: 'ultrafast' });
    expect(result.renditions.map((r) => `${r.name} ${r.width}x${r.height}`)).toEqual(['240p 240x426', '320p 320x568']);
    for (const r of result.renditions) {
      const streams = await probeStreams(join(outputDir, r.name, 'seg_000.ts'));
      expect(streams.find((s) => s.codec_type === 'video')).toMatchObject({ width: r.width, height: r.height });
    }
    expect(await probeStreams(join(outputDir, 'audio', 'seg_000.ts'))).toEqual([expect.objectContaining({ codec_name: 'aac' })]);
    expect(await readText(join(outputDir, result.master))).toContain('#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud"');
  });

  it('segment lengths outside 2-6 s are refused before any work', async () => {
    await expect(transcodeToHls({ input: 'x.mp4', outputDir: join(dir.path, 'x'), segmentSeconds: 10 })).rejects.toThrow(RangeError);
  });
});

describe('transcodeToHls at the worker’s segment length', () => {
  let dir: Awaited<ReturnType<typeof scratchDir>>;
  let outputDir: string;
  let result: TranscodeResult;
  beforeAll(async () => {
    dir = await scratchDir();
    const input = join(dir.path, 'episode.mp4');
    // 360p and up: a Main rung (with B-frames, so its encoder delays timestamps) beside a Baseline one.
    await makeClip(tools, { file: input, rate: 30, seconds: 9, width: 360, height: 640 });
    outputDir = join(dir.path, 'hls');
    result = await transcodeToHls({ input, outputDir, segmentSeconds: SEGMENT_SECONDS, preset: 'veryfast' });
  });
  afterAll(() => dir.remove());

  it('starts every rung with a short first segment, then full-length ones, cut at the same instants in every rung', async () => {
    expect(SEGMENT_SECONDS).toBe(4);
    for (const r of result.renditions) {
      const playlist = await readText(join(outputDir, r.playlist));
      const [first, ...rest] = seconds(playlist);
      expect(first, `${r.name}: the first segment`).toBeLessThanOrEqual(2.5);
      expect(first).toBeCloseTo(FIRST_SEGMENT_SECONDS, 2);
      expect(rest.slice(0, -1).map((s) => s.toFixed(3)), `${r.name}: the full-length segments`).toEqual(['4.000']);
      expect(sum(seconds(playlist))).toBeCloseTo(9, 1);
      expect(playlist).toContain('#EXT-X-TARGETDURATION:4');
    }
  });

  it('every segment of every rung opens on a keyframe at the same instant as in the other rungs', async () => {
    const starts = await Promise.all(result.renditions.map(async (r) => {
      const playlist = await readText(join(outputDir, r.playlist));
      return Promise.all(segmentNames(playlist).map((s) => firstFrameOf(join(outputDir, r.name, s))));
    }));
    for (const rung of starts) for (const frame of rung) expect(frame.keyFrame).toBe(true);
    for (const rung of starts) expect(rung.map((f) => f.seconds)).toEqual(starts[0]!.map((f) => f.seconds));
  });

  it('pictures and sound keep the same clock in every file: the first picture and the first sound share a timestamp', async () => {
    expect(planLadder(360, 640).map((r) => r.profile)).toEqual(['baseline', 'main']);
    const pictures = await Promise.all(result.renditions.map((r) => firstFrameOf(join(outputDir, r.name, 'seg_000.ts'))));
    for (const picture of pictures) expect(picture.seconds).toBeCloseTo(pictures[0]!.seconds, 3);
    // AAC's first frame is the encoder's priming (1024 samples), the sound proper follows it.
    const sound = await firstFrameOf(join(outputDir, 'audio', 'seg_000.ts'), 'a');
    expect(Math.abs(sound.seconds + 1024 / AUDIO.sampleRate - pictures[0]!.seconds)).toBeLessThan(0.005);
  });
});

/** The first frame of a stream in a segment: whether it is a keyframe, and its presentation time. */
async function firstFrameOf(file: string, stream: 'v' | 'a' = 'v'): Promise<{ keyFrame: boolean; seconds: number }> {
  const { ffprobe, env } = ffmpegTools();
  const { stdout } = await run(ffprobe, [
    '-v', 'error', '-select_streams', `${stream}:0`, '-read_intervals', '%+#1', '-show_entries', 'frame=key_frame,pts_time', '-of', 'json', file,
  ], { env });
  const [frame] = (JSON.parse(stdout) as { frames: { key_frame: number; pts_time: string }[] }).frames;
  return { keyFrame: frame!.key_frame === 1, seconds: Number(frame!.pts_time) };
}
