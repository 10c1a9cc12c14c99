import { afterEach, describe, expect, it } from 'vitest';
import { parseMasterPlaylist, rememberBandwidth, rememberedBandwidth, startVariant } from './startRung';

const MASTER = [
  '#EXTM3U',
  '#EXT-X-VERSION:3',
  '#EXT-X-INDEPENDENT-SEGMENTS',
  '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Main",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/index.m3u8"',
  '#EXT-X-STREAM-INF:BANDWIDTH=1700000,AVERAGE-BANDWIDTH=1500000,RESOLUTION=480x854,FRAME-RATE=30.000,CODECS="avc1.4D401F,mp4a.40.2",AUDIO="aud"',
  '480p/index.m3u8',
  '#EXT-X-STREAM-INF:BANDWIDTH=600000,AVERAGE-BANDWIDTH=500000,RESOLUTION=240x426,FRAME-RATE=30.000,CODECS="avc1.42E01E,mp4a.40.2",AUDIO="aud"',
  '240p/index.m3u8',
  '#EXT-X-STREAM-INF:BANDWIDTH=1100000,AVERAGE-BANDWIDTH=900000,RESOLUTION=360x640,FRAME-RATE=30.000,CODECS="avc1.4D401E,mp4a.40.2",AUDIO="aud"',
  '360p/index.m3u8',
  '#EXT-X-STREAM-INF:BANDWIDTH=3300000,AVERAGE-BANDWIDTH=2900000,RESOLUTION=720x1280,FRAME-RATE=30.000,CODECS="avc1.64001F,mp4a.40.2",AUDIO="aud"',
  '720p/index.m3u8',
  '',
].join('\n');
const BASE = 'http://site.test/media/g/grant/episodes/ep1/hls/master.m3u8';
const { variants, audio } = parseMasterPlaylist(MASTER, BASE);
const nameOf = (variant: { url: string } | undefined) => variant?.url.split('/').at(-2);

afterEach(() => localStorage.clear());

describe('the master playlist as the preload reads it', () => {
  it('finds every variant with its size and average rate, and the shared audio, as absolute URLs', () => {
    expect(variants.map((v) => [nameOf(v), v.width, v.height, v.bitsPerSecond])).toEqual([
      ['480p', 480, 854, 1500000],
      ['240p', 240, 426, 500000],
      ['360p', 360, 640, 900000],
      ['720p', 720, 1280, 2900000],
    ]);
    expect(variants[0]!.url).toBe('http://site.test/media/g/grant/episodes/ep1/hls/480p/index.m3u8');
    expect(audio).toEqual(['http://site.test/media/g/grant/episodes/ep1/hls/audio/index.m3u8']);
  });
});

describe('the rung a stream starts on', () => {
  it('without a measured bandwidth, the lightest: its short first segment arrives soonest', () => {
    expect(nameOf(startVariant(variants, null, { width: 1080, height: 1920 }))).toBe('240p');
  });

  it('with one, the best rung it carries with room to spare', () => {
    expect(nameOf(startVariant(variants, 2_000_000, null))).toBe('360p');
    expect(nameOf(startVariant(variants, 10_000_000, null))).toBe('720p');
    expect(nameOf(startVariant(variants, 100_000, null))).toBe('240p');
  });

  it('never above what the player shows: the first rung that covers its picture', () => {
    expect(nameOf(startVariant(variants, 50_000_000, { width: 390, height: 700 }))).toBe('480p');
    expect(nameOf(startVariant(variants, 50_000_000, { width: 300, height: 500 }))).toBe('360p');
  });
});

describe('the remembered bandwidth', () => {
  it('is what the last visit measured, for a day', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(rememberedBandwidth(now)).toBeNull();
    rememberBandwidth(4_200_000.4, now);
    expect(rememberedBandwidth(now + 3_600_000)).toBe(4_200_000);
    expect(rememberedBandwidth(now + 25 * 3_600_000)).toBeNull();
  });

  it('ignores what is not a measurement', () => {
    rememberBandwidth(Number.NaN);
    rememberBandwidth(0);
    expect(rememberedBandwidth()).toBeNull();
    localStorage.setItem('cliffhanger.bandwidthEstimate', 'not json');
    expect(rememberedBandwidth()).toBeNull();
  });
});
