import { afterEach, describe, expect, it } from 'vitest';
import { rememberBandwidth, rememberedBandwidth, startVariant } from './startRung';

// A ladder as hls.js lists it from the master playlist: average rates, one shared audio rendition.
const rung = (name: string, width: number, height: number, bitsPerSecond: number) => ({
  url: `http://site.test/media/g/grant/episodes/ep1/hls/${name}/index.m3u8`,
  width,
  height,
  bitsPerSecond,
});
const variants = [rung('480p', 480, 854, 1_500_000), rung('240p', 240, 426, 500_000), rung('360p', 360, 640, 900_000), rung('720p', 720, 1280, 2_900_000)];
const nameOf = (variant: { url: string } | undefined) => variant?.url.split('/').at(-2);

afterEach(() => localStorage.clear());

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
