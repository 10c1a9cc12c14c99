import { describe, expect, it } from 'vitest';
import { AUDIO_GROUP, averageBitRate, peakBitRate, renderMasterPlaylist, type Segment } from '../src/master-playlist.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const seg = (seconds: number, kbits: number): Segment => ({ uri: 's.ts', seconds, bytes: (kbits * 1000) / 8 });

describe('variant bandwidth', () => {
  it('the peak is the busiest segment, not the average', () => {
    const segments = [seg(4, 4000), seg(4, 12000), seg(4, 4000)];
    expect(peakBitRate(segments, 4)).toBe(3_000_000);
    expect(averageBitRate(segments)).toBe(1_666_667);
  });

  it('a short tail segment holding little more than a keyframe does not inflate the peak', () => {
    const segments = [seg(4, 4000), seg(4, 4000), seg(0.4, 800)];
    expect(peakBitRate(segments, 4)).toBe(Math.ceil(4_800_000 / 4.4));
  });

  it('a stream shorter than half a target duration is measured whole', () => {
    expect(peakBitRate([seg(1, 500)], 4)).toBe(500_000);
  });
});

describe('master playlist', () => {
  it('a ladder with shared sound declares its audio group first and names it on every variant', () => {
    const text = renderMasterPlaylist(
      [
        { uri: '480p/index.m3u8', width: 480, height: 854, frameRate: 30, codecs: 'avc1.4D401F,mp4a.40.2', peakBitsPerSecond: 1700000, averageBitsPerSecond: 1600000, audioGroup: AUDIO_GROUP },
        { uri: '240p/index.m3u8', width: 240, height: 426, frameRate: 30, codecs: 'avc1.42E01E,mp4a.40.2', peakBitsPerSecond: 600000, averageBitsPerSecond: 550000, audioGroup: AUDIO_GROUP },
      ],
      [{ uri: 'audio/index.m3u8', name: 'Main', channels: 2 }],
    );
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:3',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Main",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/index.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=1700000,AVERAGE-BANDWIDTH=1600000,RESOLUTION=480x854,FRAME-RATE=30.000,CODECS="avc1.4D401F,mp4a.40.2",AUDIO="aud"',
        '480p/index.m3u8',
        '#EXT-X-STREAM-INF:BANDWIDTH=600000,AVERAGE-BANDWIDTH=550000,RESOLUTION=240x426,FRAME-RATE=30.000,CODECS="avc1.42E01E,mp4a.40.2",AUDIO="aud"',
        '240p/index.m3u8',
        '',
      ].join('\n'),
    );
  });

  it('declares every variant with bandwidth, resolution and codecs, in the order given', () => {
    const text = renderMasterPlaylist([
      { uri: '480p/index.m3u8', width: 480, height: 854, frameRate: 24, codecs: 'avc1.4D401F,mp4a.40.2', peakBitsPerSecond: 1600000, averageBitsPerSecond: 1500000 },
      { uri: '240p/index.m3u8', width: 240, height: 426, frameRate: 24, codecs: 'avc1.42E01E,mp4a.40.2', peakBitsPerSecond: 500000, averageBitsPerSecond: 450000 },
    ]);
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:3',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-STREAM-INF:BANDWIDTH=1600000,AVERAGE-BANDWIDTH=1500000,RESOLUTION=480x854,FRAME-RATE=24.000,CODECS="avc1.4D401F,mp4a.40.2"',
        '480p/index.m3u8',
        '#EXT-X-STREAM-INF:BANDWIDTH=500000,AVERAGE-BANDWIDTH=450000,RESOLUTION=240x426,FRAME-RATE=24.000,CODECS="avc1.42E01E,mp4a.40.2"',
        '240p/index.m3u8',
        '',
      ].join('\n'),
    );
  });
});
