import { resolve } from 'node:path';
import type { FfmpegInvocation } from './ffmpeg-run.ts';
import { QUALITY_CRF, type PlannedRung } from './ladder.ts';
import { UNTRUSTED_INPUT_OPTIONS } from './limits.ts';
import type { MediaInfo } from './probe.ts';

export const POSTER_FILE = 'poster.jpg';
export const VARIANT_PLAYLIST = 'index.m3u8';

export interface HlsJob {
  input: string;
  media: MediaInfo;
  rungs: PlannedRung[];
  frameRate: number;
  /** Directory the ladder is written into (each rung in its own subfolder named after it). */
  outputDir: string;
  segmentSeconds: number;
  preset: string;
}

/** Poster frame: ~1 s in skips a fade from black; 10% keeps it inside very short clips. */
export function posterSeconds(durationSeconds: number): number {
  return Math.min(1, durationSeconds * 0.1);
}

// Every rung in one decode: the source is decoded and filtered once, split to one scaler per rung
// plus one poster branch, so two cores spend their time in x264 rather than in repeated decoding.
export function buildHlsInvocation(job: HlsJob): FfmpegInvocation {
  const { media, rungs, frameRate, segmentSeconds } = job;
  const n = rungs.length;
  const top = rungs[n - 1]!;
  const posterFrame = Math.floor(posterSeconds(media.durationSeconds) * frameRate);
  // The upload is read with the demuxer ffprobe accepted and the upload limits: never guessed
  // again, never allowed to open another file or a URL.
  const inputs = [{ source: resolve(job.input), options: ['-f', media.format, ...UNTRUSTED_INPUT_OPTIONS] }];
  let audioSource = '[0:a:0]';
  if (!media.hasAudio) {
    // Players stall or refuse to switch rungs when some variants lack an audio track; silence is cheap.
    inputs.push({
      source: 'anullsrc=channel_layout=stereo:sample_rate=48000',
      options: ['-f', 'lavfi', '-t', String(media.durationSeconds)],
    });
    audioSource = '[1:a]';
  }
  const filterComplex = [
    // A constant frame rate is what makes "GOP = fps x segment" land keyframes on the same
    // instants in every rung; yuv420p keeps 10-bit or 4:2:2 sources inside the declared profiles.
    `[0:${media.videoStreamIndex}]fps=${frameRate},format=yuv420p,split=${n + 1}${rungs.map((_, i) => `[s${i}]`).join('')}[sp]`,
    ...rungs.map((r, i) => `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,setsar=1[v${i}]`),
    // One frame by number: a time-based trim would keep scaling every later frame for nothing.
    `[sp]trim=start_frame=${posterFrame}:end_frame=${posterFrame + 1},scale=${top.width}:${top.height},setsar=1[poster]`,
    `${audioSource}aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,asplit=${n}${rungs.map((_, i) => `[a${i}]`).join('')}`,
  ].join(';');
  const gop = String(frameRate * segmentSeconds);
  const outputs = rungs.map((r, i) => ({
    target: `${r.name}/${VARIANT_PLAYLIST}`,
    options: [
      '-map', `[v${i}]`, '-map', `[a${i}]`,
      '-c:v', 'libx264', '-preset', job.preset, '-profile:v', r.profile, '-level:v', r.level.toFixed(1),
      // Capped CRF: constant quality, with the rung's rate as a ceiling over any two seconds.
      '-crf', String(QUALITY_CRF), '-maxrate', `${r.videoKbps}k`, '-bufsize', `${r.videoKbps * 2}k`,
      // Keyframes exactly every segment in every rung: switching rungs is then seamless.
      '-g', gop, '-keyint_min', gop, '-sc_threshold', '0',
      '-force_key_frames', `expr:gte(t,n_forced*${segmentSeconds})`,
      '-c:a', 'aac', '-b:a', `${r.audioKbps}k`,
      '-f', 'hls', '-hls_time', String(segmentSeconds), '-hls_playlist_type', 'vod',
      '-hls_flags', 'independent_segments', '-hls_segment_filename', `${r.name}/seg_%03d.ts`,
    ],
  }));
  outputs.push({
    target: POSTER_FILE,
    options: ['-map', '[poster]', '-frames:v', '1', '-q:v', '3'],
  });
  // Outputs are named relative to the ladder directory: muxers read their file names as printf
  // templates, and a "%" in the caller's directory must not become one.
  return { cwd: job.outputDir, inputs, filterComplex, outputs };
}
