import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface Segment {
  uri: string;
  seconds: number;
  bytes: number;
}

export interface VariantEntry {
  /** Playlist path relative to the master, e.g. "360p/index.m3u8". */
  uri: string;
  width: number;
  height: number;
  frameRate: number;
  codecs: string;
  peakBitsPerSecond: number;
  averageBitsPerSecond: number;
  /** GROUP-ID of the audio renditions it plays with; absent when its own segments carry the sound. */
  audioGroup?: string;
}

/** The rendition group every variant of a ladder shares its sound from. */
export const AUDIO_GROUP = 'aud';

export interface AudioRenditionEntry {
  /** Playlist path relative to the master, e.g. "audio/index.m3u8". */
  uri: string;
  name: string;
  channels: number;
}

/** Reads a VOD media playlist written by ffmpeg and sizes each of its segments on disk. */
export async function readSegments(playlistFile: string): Promise<{ targetDuration: number; segments: Segment[] }> {
  const lines = (await readFile(playlistFile, 'utf8')).split('\n').map((l) => l.trim());
  const targetDuration = Number(lines.find((l) => l.startsWith('#EXT-X-TARGETDURATION:'))?.split(':')[1]);
  const segments: Segment[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith('#EXTINF:')) return;
    const uri = lines[i + 1]!;
    segments.push({ uri, seconds: parseFloat(line.slice('#EXTINF:'.length)), bytes: 0 });
  });
  for (const s of segments) s.bytes = (await stat(join(dirname(playlistFile), s.uri))).size;
  return { targetDuration, segments };
}

// RFC 8216 4.3.4.2: BANDWIDTH is the largest bit rate of any run of contiguous segments lasting
// 0.5-1.5x the target duration. Windows rather than single segments stop a short tail segment,
// which is little more than one keyframe, from inflating the figure players pick rungs by.
export function peakBitRate(segments: Segment[], targetDuration: number): number {
  let peak = 0;
  for (let start = 0; start < segments.length; start++) {
    let bytes = 0;
    let seconds = 0;
    for (const s of segments.slice(start)) {
      bytes += s.bytes;
      seconds += s.seconds;
      if (seconds > 1.5 * targetDuration) break;
      if (seconds >= 0.5 * targetDuration) peak = Math.max(peak, (bytes * 8) / seconds);
    }
  }
  // A whole stream shorter than half a target duration has no qualifying window: use all of it.
  return Math.ceil(peak || averageBitRate(segments));
}

export function averageBitRate(segments: Segment[]): number {
  const bytes = segments.reduce((sum, s) => sum + s.bytes, 0);
  const seconds = segments.reduce((sum, s) => sum + s.seconds, 0);
  return Math.ceil((bytes * 8) / seconds);
}

/**
 * Variants in the order given: players that cannot measure bandwidth yet start with the first.
 * With `audio`, they are one group (AUDIO_GROUP) the variants name, the first the default; ladders
 * transcoded before the sound was shared have none, and their variants carry it themselves.
 */
export function renderMasterPlaylist(variants: VariantEntry[], audio: AudioRenditionEntry[] = []): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS'];
  audio.forEach((a, i) => {
    const isDefault = i === 0 ? 'YES' : 'NO';
    lines.push(
      `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="${AUDIO_GROUP}",NAME="${a.name}",DEFAULT=${isDefault},AUTOSELECT=YES,` +
        `CHANNELS="${a.channels}",URI="${a.uri}"`,
    );
  });
  for (const v of variants) {
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${v.peakBitsPerSecond},AVERAGE-BANDWIDTH=${v.averageBitsPerSecond},` +
        `RESOLUTION=${v.width}x${v.height},FRAME-RATE=${v.frameRate.toFixed(3)},CODECS="${v.codecs}"` +
        (v.audioGroup ? `,AUDIO="${v.audioGroup}"` : ''),
      v.uri,
    );
  }
  return `${lines.join('\n')}\n`;
}
