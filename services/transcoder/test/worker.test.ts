import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPlatform, stopPlatform, type BusEvent, type Platform } from '@cliffhanger/platform';
import { eventually, makeClip, openTestPlatform } from '@cliffhanger/platform/testing';
import {
  DEFAULT_LIMITS, ffmpegPath, ladderPrefixOf, registerTranscodeWorker, sweepCrashLeftovers, transcodeEpisodeJob, transcodeJobIdOf, transcodeRequests,
} from '../src/index.ts';
import { scratchDir, tools } from './media.ts';

let platform: Platform;
let events: BusEvent[];
let scratch: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  scratch = await scratchDir();
  platform = await openTestPlatform();
  events = [];
  platform.bus.subscribe('worker-test', ['transcode.completed', 'transcode.failed'], async (event) => void events.push(event));
  registerTranscodeWorker({ ...platform, workDir: path.join(scratch.path, 'work') });
  await startPlatform(platform);
});

afterEach(async () => {
  delete process.env.FFMPEG_PATH;
  await stopPlatform(platform);
  await scratch.remove();
});

async function storedUpload(episodeId: string, bytes?: Buffer) {
  const file = path.join(scratch.path, `${episodeId}.mp4`);
  if (bytes) fs.writeFileSync(file, bytes);
  else await makeClip(tools, { file, rate: 30, seconds: 2, width: 320, height: 240 });
  const upload = { episodeId, uploadId: `upload-${episodeId}`, sourceKey: `uploads/${episodeId}/source.mp4` };
  await platform.storage.putFile(upload.sourceKey, file);
  return upload;
}

/** Everything stored under an episode's folder, as relative paths. */
function storedFiles(episodeId: string): string[] {
  const root = onDisk(`episodes/${episodeId}`);
  return (fs.readdirSync(root, { recursive: true }) as string[]).sort();
}

/** Where the disk adapter (the tests' storage) keeps a key: what a test inspects of its layout. */
const onDisk = (key: string) => path.join(platform.config.dataDir, 'media', key);
const eventsOf = (episodeId: string) => events.filter((event) => event.data.episodeId === episodeId);

describe('the transcode worker', () => {
  it('turns an upload into one ladder and reports transcode.completed with what the catalog needs', async () => {
    const upload = await storedUpload('ep-plain');
    await transcodeRequests(platform.queue).request(upload, 1);
    await eventually(() => eventsOf('ep-plain').length === 1, 60_000, 'transcode.completed');
    expect(eventsOf('ep-plain')[0]).toMatchObject({
      type: 'transcode.completed',
      data: { episodeId: 'ep-plain', uploadId: upload.uploadId, mediaPrefix: ladderPrefixOf('ep-plain'), master: 'master.m3u8', poster: 'poster.jpg', width: 320, height: 240 },
    });
    expect(eventsOf('ep-plain')[0]!.data.durationSeconds).toBeCloseTo(2, 0);
    const progress = await eventually(async () => {
      const state = await transcodeRequests(platform.queue).progressOf(upload);
      return state?.state === 'completed' ? state : null;
    }, 10_000, 'the completed job');
    expect(progress.percent).toBe(100);
  }, 90_000);

  it('retries a transcode whose ffmpeg crashed and leaves one whole ladder', async () => {
    // An ffmpeg that dies by SIGKILL on its first run, as an out-of-memory kill would, then works.
    const marker = path.join(scratch.path, 'crashed-once');
    const wrapper = path.join(scratch.path, 'crashing-ffmpeg.sh');
    fs.writeFileSync(wrapper, `#!/bin/sh\nif [ ! -e "${marker}" ]; then touch "${marker}"; kill -9 $$; fi\nexec "${ffmpegPath()}" "$@"\n`, { mode: 0o755 });
    const upload = await storedUpload('ep-crash');
    process.env.FFMPEG_PATH = wrapper;
    await transcodeRequests(platform.queue).request(upload, 1);
    await eventually(() => eventsOf('ep-crash').length === 1, 60_000, 'transcode.completed after a retry');
    expect(eventsOf('ep-crash')[0]!.type).toBe('transcode.completed');
    expect(fs.existsSync(marker)).toBe(true);
    const job = await eventually(async () => {
      const state = await platform.queue.getJob(transcodeEpisodeJob, transcodeJobIdOf(upload));
      return state?.status === 'completed' ? state : null;
    }, 10_000, 'the completed job');
    // BullMQ counts finished tries, the database runner every claim: either way one failed try.
    expect(job.attempts).toBeGreaterThanOrEqual(1);
    expect(storedFiles('ep-crash').filter((file) => !file.includes('/'))).toEqual(['hls']);
  }, 90_000);

  it('leaves one ladder when the same upload is transcoded twice, and queues a repeated request once', async () => {
    const upload = await storedUpload('ep-twice');
    const requests = transcodeRequests(platform.queue);
    await requests.request(upload, 1);
    await requests.request(upload, 1);
    await eventually(() => eventsOf('ep-twice').length === 1, 60_000, 'the first run');
    const firstLadder = storedFiles('ep-twice');
    await platform.queue.enqueue(transcodeEpisodeJob, upload, { jobId: 'ep-twice-again' });
    await eventually(() => eventsOf('ep-twice').length === 2, 60_000, 'the second run');
    expect(storedFiles('ep-twice')).toEqual(firstLadder);
    expect(firstLadder.filter((file) => file.endsWith('.m3u8')).length).toBeGreaterThanOrEqual(3);
    await eventually(() => fs.readdirSync(path.join(scratch.path, 'work')).length === 0, 5_000, 'scratch space cleared');
  }, 120_000);

  it('removes the scratch folders and staging copies crashed transcodes left, and nothing younger', async () => {
    const work = path.join(scratch.path, 'work');
    const longAgo = new Date(Date.now() - 5 * 3_600_000);
    const made = (file: string, old: boolean) => {
      fs.mkdirSync(file, { recursive: true });
      fs.writeFileSync(path.join(file, 'seg_000.ts'), 'x');
      if (old) fs.utimesSync(file, longAgo, longAgo);
      return file;
    };
    const crashedScratch = made(path.join(work, 'ladder-ep-crashed-a1b2c3'), true);
    const runningScratch = made(path.join(work, 'ladder-ep-running-d4e5f6'), false);
    const crashedCopy = made(onDisk(`episodes/ep-old/hls.${randomUUID()}.part`), true);
    const replacedLadder = made(onDisk(`episodes/ep-old/hls.${randomUUID()}.old`), true);
    const copyInProgress = made(onDisk(`episodes/ep-new/hls.${randomUUID()}.part`), false);
    const ladder = made(onDisk('episodes/ep-old/hls'), true);

    const removed = await sweepCrashLeftovers({ ...platform, workDir: work, limits: { ...DEFAULT_LIMITS, maxRunSeconds: 3_600 } });
    expect(removed).toEqual({ scratch: 1, staging: 2 });
    expect([crashedScratch, crashedCopy, replacedLadder].filter((file) => fs.existsSync(file))).toEqual([]);
    expect([runningScratch, copyInProgress, ladder].every((file) => fs.existsSync(file))).toBe(true);
  });

  it('fails a corrupt upload for good at its first try', async () => {
    const upload = await storedUpload('ep-corrupt', Buffer.from('not a video at all'.repeat(100)));
    await transcodeRequests(platform.queue).request(upload, 1);
    await eventually(() => eventsOf('ep-corrupt').length === 1, 30_000, 'transcode.failed');
    expect(eventsOf('ep-corrupt')[0]).toMatchObject({ type: 'transcode.failed', data: { episodeId: 'ep-corrupt', reason: expect.stringMatching(/not a video file/) } });
    const job = await eventually(async () => {
      const state = await platform.queue.getJob(transcodeEpisodeJob, transcodeJobIdOf(upload));
      return state?.status === 'dead' ? state : null;
    }, 10_000, 'the dead job');
    expect(job.attempts).toBe(1);
  }, 60_000);
});
