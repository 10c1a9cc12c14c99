export type H264Profile = 'baseline' | 'main' | 'high';

export interface Rung {
  /** "360p" names the SHORT side, so a 9:16 short-drama clip's 360p is 360x640. */
  name: string;
  shortSide: number;
  /** Ceiling of the video bitrate (the VBV rate); easy scenes spend less. */
  videoKbps: number;
  profile: H264Profile;
  /** Lowest H.264 level the rung declares; raised when an unusual aspect needs more. */
  level: number;
}

// Bitrates sized for talking-head drama at 30 fps, not sport. Baseline at the bottom rung keeps
// old low-end phones playing; High from 720p up buys ~10% at equal quality.
export const LADDER: readonly Rung[] = [
  { name: '240p', shortSide: 240, videoKbps: 400, profile: 'baseline', level: 3.0 },
  { name: '360p', shortSide: 360, videoKbps: 800, profile: 'main', level: 3.0 },
  { name: '480p', shortSide: 480, videoKbps: 1400, profile: 'main', level: 3.1 },
  { name: '720p', shortSide: 720, videoKbps: 2800, profile: 'high', level: 3.1 },
  { name: '1080p', shortSide: 1080, videoKbps: 5000, profile: 'high', level: 4.0 },
];

/**
 * The one audio rendition every rung shares (an HLS audio group): encoded once instead of once per
 * rung, and a rung switch never changes the sound. 128 kbps AAC-LC stereo is transparent for
 * dialogue and music beds; at the bottom rung it costs a little more than the 64 kbps it had, which
 * the ladder's savings (one AAC encode, no audio in N video streams) pay for.
 */
export const AUDIO = { kbps: 128, sampleRate: 48000, channels: 2, codec: 'mp4a.40.2' } as const;

/**
 * x264 quality target under each rung's ceiling: a dialogue close-up needs far fewer bits than
 * a crowd scene, and constant quality lets it take only those instead of padding to a bitrate.
 */
export const QUALITY_CRF = 23;

/** Higher rates only cost bits on dialogue scenes, and fixed rates keep segment GOPs aligned. */
export const MAX_FRAME_RATE = 30;

export interface PlannedRung extends Rung {
  width: number;
  height: number;
  /** RFC 6381 value for the master playlist's CODECS attribute: the rung's video, then the shared audio. */
  codecs: string;
}

export function outputFrameRate(sourceFrameRate: number): number {
  return Math.min(MAX_FRAME_RATE, Math.max(1, Math.round(sourceFrameRate)));
}

/** Rungs up to the source's short side, smallest first; never upscales, always at least two. */
export function planLadder(width: number, height: number, frameRate = MAX_FRAME_RATE): PlannedRung[] {
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  let rungs = LADDER.filter((r) => r.shortSide <= short);
  if (rungs.length < 2) {
    // A tiny source keeps its own size on top and gets a step down for weak connections: 240p
    // when that is at least 20% smaller (closer rungs waste an encode), else two thirds of it.
    const top = Math.max(4, floorEven(short));
    const lower = top >= 300 ? 240 : Math.max(2, roundEven((top * 2) / 3));
    rungs = [rungAt(lower), rungAt(top)];
  }
  return rungs.map((rung) => {
    const rungLong = Math.min(roundEven((long * rung.shortSide) / short), floorEven(long));
    const [w, h] = width <= height ? [rung.shortSide, rungLong] : [rungLong, rung.shortSide];
    const level = fitLevel(w, h, frameRate, rung.level);
    return { ...rung, level, width: w, height: h, codecs: `${avc1(rung.profile, level)},${AUDIO.codec}` };
  });
}

function rungAt(shortSide: number): Rung {
  const base = LADDER[0]!;
  if (shortSide === base.shortSide) return base;
  const videoKbps = Math.max(100, Math.round(base.videoKbps * (shortSide / base.shortSide) ** 2));
  return { ...base, name: `${shortSide}p`, shortSide, videoKbps };
}

// H.264 Annex A limits: frame size and macroblock rate, and no side longer than sqrt(8 * frame).
const LEVELS = [
  { level: 3.0, maxFrameMbs: 1620, maxMbsPerSecond: 40500 },
  { level: 3.1, maxFrameMbs: 3600, maxMbsPerSecond: 108000 },
  { level: 3.2, maxFrameMbs: 5120, maxMbsPerSecond: 216000 },
  { level: 4.0, maxFrameMbs: 8192, maxMbsPerSecond: 245760 },
  { level: 5.0, maxFrameMbs: 22080, maxMbsPerSecond: 589824 },
  { level: 5.1, maxFrameMbs: 36864, maxMbsPerSecond: 983040 },
];

function fitLevel(width: number, height: number, frameRate: number, atLeast: number): number {
  const mbsWide = Math.ceil(width / 16);
  const mbsHigh = Math.ceil(height / 16);
  const frameMbs = mbsWide * mbsHigh;
  const fit = LEVELS.find(
    (l) =>
      l.level >= atLeast &&
      frameMbs <= l.maxFrameMbs &&
      frameMbs * frameRate <= l.maxMbsPerSecond &&
      Math.max(mbsWide, mbsHigh) ** 2 <= 8 * l.maxFrameMbs,
  );
  return (fit ?? LEVELS[LEVELS.length - 1]!).level;
}

const PROFILE_IDC: Record<H264Profile, string> = { baseline: '42E0', main: '4D40', high: '6400' };

function avc1(profile: H264Profile, level: number): string {
  const levelIdc = Math.round(level * 10).toString(16).toUpperCase().padStart(2, '0');
  return `avc1.${PROFILE_IDC[profile]}${levelIdc}`;
}

function roundEven(n: number): number {
  return Math.round(n / 2) * 2;
}

function floorEven(n: number): number {
  return Math.floor(n / 2) * 2;
}
