import ffmpeg, { type FfmpegCommand } from 'fluent-ffmpeg';
import { ffmpegPath } from './ffmpeg-paths.ts';

/** One ffmpeg run as plain data, so the pipeline and a bare-ffmpeg baseline run the same thing. */
export interface FfmpegInvocation {
  /** Working directory that relative input and output names resolve against. */
  cwd?: string;
  inputs: { source: string; options: string[] }[];
  filterComplex: string;
  outputs: { target: string; options: string[] }[];
}

export class FfmpegError extends Error {
  override readonly name = 'FfmpegError';
  constructor(message: string, readonly stderr: string) {
    super(message);
  }
}

/** The argument list exactly as fluent-ffmpeg assembles it for `toFfmpegCommand`. */
export function ffmpegArgs(run: FfmpegInvocation): string[] {
  return [
    ...run.inputs.flatMap((i) => [...i.options, '-i', i.source]),
    '-y',
    '-filter_complex', run.filterComplex,
    ...run.outputs.flatMap((o) => [...o.options, o.target]),
  ];
}

export function toFfmpegCommand(run: FfmpegInvocation): FfmpegCommand {
  // Options go in spread: given one array, fluent-ffmpeg splits any value holding a single space
  // ("/media/my show/seg_%03d.ts") into two arguments.
  const command = ffmpeg({ cwd: run.cwd }).setFfmpegPath(ffmpegPath());
  for (const input of run.inputs) {
    command.input(input.source);
    if (input.options.length) command.inputOptions(...input.options);
  }
  command.complexFilter(run.filterComplex);
  for (const output of run.outputs) command.output(output.target).outputOptions(...output.options);
  return command;
}

/** Runs to completion; `onTime` receives how many seconds of output ffmpeg reports done so far. */
export function runFfmpeg(run: FfmpegInvocation, onTime?: (seconds: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const command = toFfmpegCommand(run);
    // ffmpeg's own progress lines ("... time=00:00:12.34 ...") read straight off stderr: listening
    // to fluent-ffmpeg's 'progress' event instead makes it spawn an extra ffprobe on every run.
    if (onTime) {
      command.on('stderr', (line: string) => {
        const time = PROGRESS_TIME.exec(line)?.[1];
        if (time) onTime(timemarkSeconds(time));
      });
    }
    command
      .on('end', () => resolve())
      .on('error', (error: Error, _stdout: string | null, stderr: string | null) => {
        reject(new FfmpegError(`ffmpeg failed: ${error.message}`, stderr ?? ''));
      })
      .run();
  });
}

const PROGRESS_TIME = /\btime=\s*(\d+:\d+:[\d.]+)/;

function timemarkSeconds(timemark: string): number {
  return timemark.split(':').reduce((total, part) => total * 60 + Number(part), 0) || 0;
}
