import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { servePixel } from '../../testing/renderWithApp';
import { measurePlayback, startPlaybackSession } from './playbackQuality';

let clock: number;
let video: HTMLVideoElement;

/** Moves the clock on by `ms`, then has the video fire `events` in order. */
function at(ms: number, ...events: string[]) {
  clock += ms;
  for (const type of events) video.dispatchEvent(new Event(type));
}

/** The picture the decoder currently shows: a rendition switch changes it and fires `resize`. */
function showPicture(width: number, height: number) {
  Object.defineProperty(video, 'videoWidth', { configurable: true, value: width });
  Object.defineProperty(video, 'videoHeight', { configurable: true, value: height });
}

const meter = () => measurePlayback(video, () => clock);

beforeEach(() => {
  clock = 1_000;
  video = document.createElement('video');
});

describe('the playback quality of a session', () => {
  it('times startup from the play request to the first frame, then the time spent playing', () => {
    const session = meter();
    at(300, 'loadedmetadata');
    showPicture(360, 640);
    at(150, 'play');
    at(250, 'playing');
    at(4_000, 'pause');
    at(10_000);
    expect(session.finish()).toEqual({ startupMs: 700, rebufferCount: 0, rebufferMs: 0, watchMs: 4_000, rung: '360p' });
  });

  it('counts stalls after the first frame as rebuffering, not the waits of a seek nor of startup', () => {
    const session = meter();
    at(100, 'waiting');
    at(400, 'playing');
    at(2_000, 'waiting');
    at(1_500, 'playing');
    at(1_000, 'seeking', 'waiting');
    at(800, 'seeked', 'playing');
    at(3_000, 'waiting');
    at(500, 'playing');
    at(1_000, 'ended');
    expect(session.finish()).toMatchObject({ startupMs: 500, rebufferCount: 2, rebufferMs: 2_000, watchMs: 2_000 + 1_000 + 3_000 + 1_000 });
  });

  it('counts a stall still going when the session ends', () => {
    const session = meter();
    at(200, 'playing');
    at(1_000, 'waiting');
    at(2_500);
    expect(session.finish()).toMatchObject({ rebufferCount: 1, rebufferMs: 2_500, watchMs: 1_000 });
  });

  it('names the rung watched longest by its short side, across rendition switches', () => {
    showPicture(240, 426);
    const session = meter();
    at(100, 'playing');
    at(1_000);
    showPicture(720, 1280);
    at(0, 'resize');
    at(5_000);
    showPicture(480, 854);
    at(0, 'resize');
    at(2_000, 'pause');
    expect(session.finish()).toMatchObject({ watchMs: 8_000, rung: '720p' });
  });

  it('times startup from the viewer’s press when autoplay was refused, and reports nothing if they never press', () => {
    const pressed = meter();
    at(500, 'loadedmetadata');
    pressed.waitForViewer();
    at(30_000, 'play');
    at(400, 'playing');
    expect(pressed.finish()).toMatchObject({ startupMs: 400 });

    const never = meter();
    at(500);
    never.waitForViewer();
    at(30_000);
    expect(never.finish()).toBeNull();
  });

  it('keeps the first fatal error: hls.js’s type, or the media element’s error', () => {
    const fromHls = meter();
    at(2_000);
    fromHls.fail('networkError');
    fromHls.fail('mediaError');
    expect(fromHls.finish()).toEqual({ rebufferCount: 0, rebufferMs: 0, watchMs: 0, error: 'networkError' });

    const fromElement = meter();
    Object.defineProperty(video, 'error', { configurable: true, value: { code: 3 } });
    at(100, 'error');
    expect(fromElement.finish()).toMatchObject({ error: 'MEDIA_ERR_DECODE' });
  });

  it('stops listening when it finishes', () => {
    const session = meter();
    at(100, 'playing');
    expect(session.finish()).toMatchObject({ watchMs: 0 });
    at(5_000, 'waiting', 'playing', 'pause');
    expect(session.finish()).toMatchObject({ startupMs: 100, rebufferCount: 0, watchMs: 0 });
  });
});

describe('a playback session', () => {
  let hits: URLSearchParams[];

  beforeEach(() => {
    hits = servePixel();
    // The session reads the page's clock; on the test's, time moves only when `at` says (a loaded
    // machine took 2 ms between 'playing' and the end, and the hit said it was watched 2 ms).
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
  });
  afterEach(() => vi.restoreAllMocks());

  it('sends one playback hit with the episode when it ends, however often it is ended', () => {
    const session = startPlaybackSession(video, { videoId: 'v1', episodeId: 'e1' });
    at(80, 'playing');
    session.end();
    session.end();
    window.dispatchEvent(new Event('pagehide'));
    expect(hits).toHaveLength(1);
    expect(Object.fromEntries(hits[0]!)).toMatchObject({ event: 'playback', videoId: 'v1', episodeId: 'e1', rebufferCount: '0', rebufferMs: '0', watchMs: '0' });
    expect(hits[0]!.get('startupMs')).toBe('80');
  });

  it('sends its hit when the page is left', () => {
    const session = startPlaybackSession(video, { videoId: 'v1', episodeId: 'e2' });
    session.fail('networkError');
    window.dispatchEvent(new Event('pagehide'));
    expect(hits.map((hit) => [hit.get('event'), hit.get('episodeId'), hit.get('error')])).toEqual([['playback', 'e2', 'networkError']]);
    session.end();
    expect(hits).toHaveLength(1);
  });
});
