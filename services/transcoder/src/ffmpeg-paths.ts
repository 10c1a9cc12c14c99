import { accessSync, constants } from 'node:fs';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';

// Debian's build gets security fixes with the system; the npm static builds are years old and only
// stand in where no system ffmpeg is installed (a developer's machine without the package).
const SYSTEM = { ffmpeg: '/usr/bin/ffmpeg', ffprobe: '/usr/bin/ffprobe' };

const installed = new Map<string, boolean>();
function isInstalled(file: string): boolean {
  if (!installed.has(file)) {
    try {
      accessSync(file, constants.X_OK);
      installed.set(file, true);
    } catch {
      installed.set(file, false);
    }
  }
  return installed.get(file)!;
}

// Read at call time, not import time, so an operator (or a test) can point at another build, such
// as one with hardware encoders, without touching the code.
export function ffmpegPath(): string {
  return process.env.FFMPEG_PATH || (isInstalled(SYSTEM.ffmpeg) ? SYSTEM.ffmpeg : ffmpegInstaller.path);
}

export function ffprobePath(): string {
  return process.env.FFPROBE_PATH || (isInstalled(SYSTEM.ffprobe) ? SYSTEM.ffprobe : ffprobeInstaller.path);
}

/**
 * The whole environment ffmpeg and ffprobe run with: PATH, the locale (LANG, LC_ALL, when set) and
 * their temp folder. They parse untrusted uploads: none of the process's secrets (DATABASE_URL,
 * STRIPE_SECRET_KEY, ADMIN_TOKEN, INTERNAL_TOKEN, MEDIA_SECRET) is theirs to read.
 */
export function ffmpegEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'LANG', 'LC_ALL', 'TMPDIR']) if (process.env[name]) env[name] = process.env[name];
  return env;
}

/**
 * Environment for running ffprobe. The npm static build links glibc's iconv, which loads the host's
 * (mismatched) gconv modules to decode MPEG-TS service names and segfaults on every .ts file; with
 * GCONV_PATH pointing nowhere iconv fails cleanly and ffprobe keeps the raw names. Other builds
 * use their own system's modules and need nothing.
 */
export function ffprobeEnv(): NodeJS.ProcessEnv {
  return ffprobePath() === ffprobeInstaller.path ? { ...ffmpegEnv(), GCONV_PATH: '/dev/null' } : ffmpegEnv();
}

/** The binaries and environment together, as tests and tools that shell out to them take them. */
export const ffmpegTools = () => ({ ffmpeg: ffmpegPath(), ffprobe: ffprobePath(), env: ffprobeEnv() });

/** Which builds run, for the one line a worker logs at start. */
export function ffmpegBuilds(): { ffmpeg: string; ffprobe: string } {
  const origin = (path: string, variable: string, system: string) =>
    `${path} (${process.env[variable] ? variable : path === system ? 'the system package' : 'the npm static build'})`;
  return { ffmpeg: origin(ffmpegPath(), 'FFMPEG_PATH', SYSTEM.ffmpeg), ffprobe: origin(ffprobePath(), 'FFPROBE_PATH', SYSTEM.ffprobe) };
}
