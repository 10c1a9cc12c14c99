import { resolve } from 'node:path';
import type { FfmpegInvocation } from './ffmpeg-run.ts';
import { AUDIO, QUALITY_CRF, type PlannedRung } from './ladder.ts';
import { UNTRUSTED_INPUT_OPTIONS } from './limits.ts';
import type { MediaInfo } from './probe.ts';

export const POSTER_FILE = 'poster.jpg';
export const VARIANT_PLAYLIST = 'index.m3u8';
/** Folder of the audio rendition every rung shares, beside the rungs' folders. */
export const AUDIO_RENDITION = 'audio';

/**
 * The first segment of every rung is this long (at most), the rest `segmentSeconds`: a player
 * starts after one segment, so a short first one is a fast first frame, and the longer rest keep
 * playlists and requests few.
 */
export const FIRST_SEGMENT_SECONDS = 2;

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
// plus one poster branch, and its sound encoded once for all rungs, so two cores spend their time
// in x264 rather than in repeated decoding or AAC encodes.
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
    // Players stall or refuse to play a variant whose audio group has nothing in it; silence is cheap.
    inputs.push({
      source: `anullsrc=channel_layout=stereo:sample_rate=${AUDIO.sampleRate}`,
      options: ['-f', 'lavfi', '-t', String(media.durationSeconds)],
    });
    audioSource = '[1:a]';
  }
  const filterComplex = [
    // A constant frame rate is what makes keyframes by frame number land on the same instants in
    // every rung; yuv420p keeps 10-bit or 4:2:2 sources inside the declared profiles.
    `[0:${media.videoStreamIndex}]fps=${frameRate},format=yuv420p,split=${n + 1}${rungs.map((_, i) => `[s${i}]`).join('')}[sp]`,
    ...rungs.map((r, i) => `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,setsar=1[v${i}]`),
    // One frame by number: a time-based trim would keep scaling every later frame for nothing.
    `[sp]trim=start_frame=${posterFrame}:end_frame=${posterFrame + 1},scale=${top.width}:${top.height},setsar=1[poster]`,
    `${audioSource}aresample=${AUDIO.sampleRate},aformat=sample_fmts=fltp:channel_layouts=stereo[aud]`,
  ].join(';');
  const first = Math.min(FIRST_SEGMENT_SECONDS, segmentSeconds);
  // The rungs and the sound are separate files, and ffmpeg shifts each output on its own until its
  // first timestamp is not negative: by the B-frame delay in a Main or High rung, by none in a
  // Baseline one, by the AAC priming in the sound. Starting every output a second later leaves
  // nothing negative to shift, so a picture and its sound carry the same timestamp in every file.
  const sameClock = ['-output_ts_offset', '1'];
  const gop = Math.round(frameRate * segmentSeconds);
  // Keyframes at frame 0, at the end of the short first segment, then every segmentSeconds: by
  // frame number, so no rounding of timestamps can put one a frame early or late in some rung.
  const keyframes = `expr:gte(n,max(0,n_forced*${gop}-${gop - Math.round(first * frameRate)}))`;
  const outputs = rungs.map((r, i) => ({
    target: `${r.name}/${VARIANT_PLAYLIST}`,
    options: [
      '-map', `[v${i}]`,
      '-c:v', 'libx264', '-preset', job.preset, '-profile:v', r.profile, '-level:v', r.level.toFixed(1),
      // Capped CRF: constant quality, with the rung's rate as a ceiling over any two seconds.
      '-crf', String(QUALITY_CRF), '-maxrate', `${r.videoKbps}k`, '-bufsize', `${r.videoKbps * 2}k`,
      // Keyframes only where segments start, the same frames in every rung: switching rungs is
      // then seamless, and no scene cut adds one.
      '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0', '-force_key_frames', keyframes,
      // The muxer cuts at the first keyframe past each multiple of -hls_time. With it at the first
      // segment's length every planned keyframe is past its mark, so each starts a segment: 2 s,
      // then segmentSeconds. (-hls_init_time would do it for live lists only: in a VOD playlist
      // ffmpeg applies it to every segment.)
      ...sameClock, '-f', 'hls', '-hls_time', String(first), '-hls_playlist_type', 'vod',
      '-hls_flags', 'independent_segments', '-hls_segment_filename', `${r.name}/seg_%03d.ts`,
    ],
  }));
  outputs.push({
    target: `${AUDIO_RENDITION}/${VARIANT_PLAYLIST}`,
    options: [
      '-map', '[aud]', '-c:a', 'aac', '-b:a', `${AUDIO.kbps}k`, '-ac', String(AUDIO.channels),
      // Full-length segments from the start: 4 s of it weigh less than the 2 s video segment
      // loaded beside it, so a short first one would not bring the first frame any sooner.
      ...sameClock, '-f', 'hls', '-hls_time', String(segmentSeconds), '-hls_playlist_type', 'vod',
      '-hls_segment_filename', `${AUDIO_RENDITION}/seg_%03d.ts`,
    ],
  });
  outputs.push({
    target: POSTER_FILE,
    options: ['-map', '[poster]', '-frames:v', '1', '-q:v', '3'],
  });
  // Outputs are named relative to the ladder directory: muxers read their file names as printf
  // templates, and a "%" in the caller's directory must not become one.
  return { cwd: job.outputDir, inputs, filterComplex, outputs };
}
