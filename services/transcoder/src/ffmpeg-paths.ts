import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';

// Read at call time, not import time, so an operator (or a test) can point at a system build
// such as one with hardware encoders without touching the code.
export function ffmpegPath(): string {
  return process.env.FFMPEG_PATH || ffmpegInstaller.path;
}

export function ffprobePath(): string {
  return process.env.FFPROBE_PATH || ffprobeInstaller.path;
}

/**
 * Environment for running ffprobe. The bundled static build links glibc's iconv, which loads the
 * host's (mismatched) gconv modules to decode MPEG-TS service names and segfaults on every .ts
 * file; with GCONV_PATH pointing nowhere iconv fails cleanly and ffprobe keeps the raw names.
 */
export function ffprobeEnv(): NodeJS.ProcessEnv {
  return process.env.FFPROBE_PATH ? process.env : { ...process.env, GCONV_PATH: '/dev/null' };
}
