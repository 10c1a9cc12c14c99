import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { attachStream, PLAYING_BUFFER_SECONDS, STANDBY_BUFFER_SECONDS } from './attachStream';

// hls.js itself, standing in as far as attachStream talks to it: the config it is made with, and
// what the handle changes in it later.
const made = vi.hoisted(() => [] as { config: Record<string, unknown> }[]);
vi.mock('hls.js', () => {
  class Hls {
    static isSupported = () => true;
    static Events = { MANIFEST_PARSED: 'manifestParsed', FRAG_BUFFERED: 'fragBuffered', ERROR: 'error', MEDIA_ATTACHED: 'mediaAttached' };
    static ErrorTypes = { NETWORK_ERROR: 'networkError', MEDIA_ERROR: 'mediaError' };
    config: Record<string, unknown>;
    constructor(config: Record<string, unknown>) {
      this.config = { ...config };
      made.push(this);
    }
    on() {}
    once() {}
    attachMedia() {}
    stopLoad() {}
    detachMedia() {}
    destroy() {}
  }
  return { default: Hls };
});

beforeEach(() => {
  made.length = 0;
  vi.stubGlobal('MediaSource', class {});
});
afterEach(() => vi.unstubAllGlobals());

describe('how far ahead a stream buffers', () => {
  it('is bounded both ways, since hls.js takes maxBufferLength as a floor and fills up to 60 MB past it', async () => {
    const handle = await attachStream(document.createElement('video'), '/media/master.m3u8', () => undefined, STANDBY_BUFFER_SECONDS);
    expect(made[0]!.config).toMatchObject({ maxBufferLength: STANDBY_BUFFER_SECONDS, maxMaxBufferLength: STANDBY_BUFFER_SECONDS });
    handle.bufferAhead(PLAYING_BUFFER_SECONDS);
    expect(made[0]!.config).toMatchObject({ maxBufferLength: PLAYING_BUFFER_SECONDS, maxMaxBufferLength: PLAYING_BUFFER_SECONDS });
  });
});
