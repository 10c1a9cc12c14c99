/**
 * Which rung a stream starts on (attachStream.ts), for the episode playing and for the next one
 * standing by alike.
 */
export interface Variant {
  url: string;
  width: number;
  height: number;
  /** AVERAGE-BANDWIDTH when the master declares it, else BANDWIDTH: what a rung costs over time. */
  bitsPerSecond: number;
}

/** The player's picture in device pixels: no rung above what it can show is worth its bits. */
export interface PlayerBox {
  width: number;
  height: number;
}

// Only part of a remembered estimate is spent on the first rung: the network may have slowed since,
// and a stall at the start costs more than a sharper picture gains. hls.js climbs from there.
const SAFETY = 0.7;
const REMEMBERED_FOR_MS = 24 * 3_600_000;
const STORAGE_KEY = 'cliffhanger.bandwidthEstimate';

/**
 * The variant to start on: the best one the remembered bandwidth carries, no larger than the player
 * needs; without an estimate the lightest, whose short first segment arrives soonest and measures
 * the network for what follows.
 */
export function startVariant<T extends Variant>(variants: T[], bandwidth: number | null, box: PlayerBox | null): T | undefined {
  const byCost = [...variants].sort((a, b) => a.bitsPerSecond - b.bitsPerSecond);
  if (bandwidth === null) return byCost[0];
  // As hls.js caps to the player size: the first rung that covers the box, nothing above it.
  const coverIndex = box && box.width > 0 && box.height > 0 ? byCost.findIndex((v) => v.width >= box.width || v.height >= box.height) : -1;
  const allowed = coverIndex === -1 ? byCost : byCost.slice(0, coverIndex + 1);
  return allowed.filter((v) => v.bitsPerSecond <= bandwidth * SAFETY).at(-1) ?? byCost[0];
}

export function playerBox(video: HTMLVideoElement): PlayerBox | null {
  const ratio = window.devicePixelRatio || 1;
  const box = { width: Math.round(video.clientWidth * ratio), height: Math.round(video.clientHeight * ratio) };
  return box.width > 0 && box.height > 0 ? box : null;
}

/** The bandwidth hls.js measured in this or a recent visit, in bits per second; null when none is fresh. */
export function rememberedBandwidth(now = Date.now()): number | null {
  try {
    const stored = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? 'null') as { bps?: unknown; at?: unknown } | null;
    if (typeof stored?.bps !== 'number' || typeof stored.at !== 'number' || !(stored.bps > 0)) return null;
    return now - stored.at < REMEMBERED_FOR_MS ? stored.bps : null;
  } catch {
    return null;
  }
}

export function rememberBandwidth(bitsPerSecond: number, now = Date.now()): void {
  if (!(bitsPerSecond > 0) || !Number.isFinite(bitsPerSecond)) return;
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify({ bps: Math.round(bitsPerSecond), at: now }));
  } catch {
    // Without storage the next visit measures again, as a first visit does.
  }
}
