import { describe, expect, it } from 'vitest';
import { LADDER, outputFrameRate, planLadder } from '../src/index.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const names = (w: number, h: number) => planLadder(w, h).map((r) => r.name);
const sizes = (w: number, h: number) => planLadder(w, h).map((r) => `${r.width}x${r.height}`);

describe('planLadder', () => {
  it.each([
    [1080, 1920, ['240p', '360p', '480p', '720p', '1080p']],
    [1920, 1080, ['240p', '360p', '480p', '720p', '1080p']],
    [720, 1280, ['240p', '360p', '480p', '720p']],
    [480, 854, ['240p', '360p', '480p']],
    [2160, 3840, ['240p', '360p', '480p', '720p', '1080p']],
    [1000, 1778, ['240p', '360p', '480p', '720p']],
  ])('a %ix%i source gets the rungs up to its short side', (w, h, expected) => {
    expect(names(w, h)).toEqual(expected);
  });

  it('a vertical 9:16 source gets vertical rungs named by their short side', () => {
    expect(sizes(1080, 1920)).toEqual(['240x426', '360x640', '480x854', '720x1280', '1080x1920']);
  });

  it('a horizontal 16:9 source gets horizontal rungs', () => {
    expect(sizes(1920, 1080)).toEqual(['426x240', '640x360', '854x480', '1280x720', '1920x1080']);
  });

  it('a 4:3 source keeps its aspect ratio', () => {
    expect(sizes(1440, 1080)).toEqual(['320x240', '480x360', '640x480', '960x720', '1440x1080']);
  });

  it.each([
    [320, 568, ['240x426', '320x568']],
    [300, 534, ['240x428', '300x534']],
    [240, 426, ['160x284', '240x426']],
    [176, 144, ['118x96', '176x144']],
  ])('a %ix%i source smaller than 360p keeps its own size plus one smaller rung', (w, h, expected) => {
    expect(sizes(w, h)).toEqual(expected);
  });

  const sources = [[1080, 1920], [1920, 1080], [481, 853], [853, 481], [720, 720], [1080, 3240], [333, 999], [240, 426], [100, 100]];

  it.each(sources)('a %ix%i source is never upscaled and gets at least two rungs with even sizes', (w, h) => {
    const rungs = planLadder(w, h);
    expect(rungs.length).toBeGreaterThanOrEqual(2);
    for (const r of rungs) {
      expect(r.width % 2, `${r.name} width`).toBe(0);
      expect(r.height % 2, `${r.name} height`).toBe(0);
      expect(r.width).toBeLessThanOrEqual(w);
      expect(r.height).toBeLessThanOrEqual(h);
      expect(Math.abs(r.width / r.height - w / h) / (w / h)).toBeLessThan(0.02);
    }
    const widths = rungs.map((r) => r.width);
    expect(widths).toEqual([...widths].sort((a, b) => a - b));
  });

  it('each rung declares the H.264 profile and level of the table in its CODECS string', () => {
    expect(planLadder(1080, 1920).map((r) => r.codecs)).toEqual([
      'avc1.42E01E,mp4a.40.2',
      'avc1.4D401E,mp4a.40.2',
      'avc1.4D401F,mp4a.40.2',
      'avc1.64001F,mp4a.40.2',
      'avc1.640028,mp4a.40.2',
    ]);
  });

  it('an unusually tall source raises the level its frame size needs', () => {
    const top = planLadder(1080, 3240).at(-1)!;
    expect(top.level).toBeGreaterThan(LADDER.at(-1)!.level);
    expect(top.codecs.startsWith(`avc1.6400${Math.round(top.level * 10).toString(16).toUpperCase()}`)).toBe(true);
  });

  it('bitrates rise with every rung', () => {
    const rates = planLadder(1080, 1920).map((r) => r.videoKbps);
    expect(rates).toEqual([...rates].sort((a, b) => a - b));
    expect(new Set(rates).size).toBe(rates.length);
  });
});

describe('outputFrameRate', () => {
  it.each([
    [23.976, 24],
    [25, 25],
    [29.97, 30],
    [59.94, 30],
    [120, 30],
  ])('a %f fps source is encoded at a whole %i fps, at most 30', (source, expected) => {
    expect(outputFrameRate(source)).toBe(expected);
  });
});
