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
