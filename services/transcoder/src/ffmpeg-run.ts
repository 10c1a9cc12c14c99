import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { ffmpegEnv, ffmpegPath } from './ffmpeg-paths.ts';
import type { RunLimits } from './limits.ts';

/** One ffmpeg run as plain data, so the pipeline and a bare-ffmpeg baseline run the same thing. */
export interface FfmpegInvocation {
  /** Working directory that relative input and output names resolve against. */
  cwd?: string;
  inputs: { source: string; options: string[] }[];
  filterComplex: string;
  outputs: { target: string; options: string[] }[];
}

/** How a run ended badly: its own error, or one of our limits stopping it. */
export type FfmpegFailure = 'exit' | 'timeout' | 'cpu-limit' | 'aborted';

export class FfmpegError extends Error {
  override readonly name = 'FfmpegError';
  constructor(
    message: string,
    readonly stderr: string,
    readonly failure: FfmpegFailure = 'exit',
    /** Null when a signal ended it. */
    readonly exitCode: number | null = null,
  ) {
    super(message);
  }
}

/** The ffmpeg argument list of an invocation. */
export function ffmpegArgs(run: FfmpegInvocation): string[] {
  return [
    ...run.inputs.flatMap((i) => [...i.options, '-i', i.source]),
    '-y',
    '-filter_complex', run.filterComplex,
    ...run.outputs.flatMap((o) => [...o.options, o.target]),
  ];
}

export interface ToolRunOptions extends Partial<RunLimits> {
  cwd?: string;
  /** Its whole environment: ffmpegEnv() unless given (ffprobeEnv()), never the process's own. */
  env?: NodeJS.ProcessEnv;
  /** Its TMPDIR: scratch space of the job, removed with it. */
  tmpDir?: string;
  /** Stops the run (the job it works for was lost). */
  signal?: AbortSignal;
  onStderrLine?: (line: string) => void;
}

const helpers = new Map<string, string | null>();
/** Where a helper program is on PATH, or null. */
function helper(name: string): string | null {
  if (!helpers.has(name)) {
    const found = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, name)).find((file) => {
      try {
        accessSync(file, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    helpers.set(name, found ?? null);
  }
  return helpers.get(name)!;
}

const STDOUT_LIMIT = 16 << 20;
const STDERR_KEPT = 64 << 10;

/**
 * Runs ffmpeg or ffprobe at low priority (nice 10, so serving stays responsive) under a wall-clock
 * timeout and a CPU-time limit (prlimit, or the tool's own -timelimit where prlimit is missing);
 * answers its stdout. A binary that is not there rejects as itself, not as an FfmpegError: that is
 * our installation's fault, never the input's.
 */
export async function runFfmpegTool(binary: string, args: string[], options: ToolRunOptions = {}): Promise<string> {
  accessSync(binary, constants.X_OK);
  const { cpuSeconds, timeoutMs, signal } = options;
  const prlimit = cpuSeconds ? helper('prlimit') : null;
  const nice = helper('nice');
  // The soft limit sends SIGXCPU, which ffmpeg answers by stopping cleanly; the hard one kills.
  const command = [
    ...(prlimit ? [prlimit, `--cpu=${cpuSeconds}:${cpuSeconds! + 5}`, '--'] : []),
    ...(nice ? [nice, '-n', '10'] : []),
    binary,
    ...(cpuSeconds && !prlimit ? ['-timelimit', String(cpuSeconds)] : []),
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const env = { ...(options.env ?? ffmpegEnv()), ...(options.tmpDir ? { TMPDIR: options.tmpDir } : {}) };
    const child = spawn(command[0]!, command.slice(1), { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partLine = '';
    let stoppedFor: FfmpegFailure | null = null;
    const stop = (why: FfmpegFailure) => {
      stoppedFor ??= why;
      child.kill('SIGKILL');
    };
    const timer = timeoutMs ? setTimeout(() => stop('timeout'), timeoutMs) : null;
    const onAbort = () => stop('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const settle = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };

    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.length > STDOUT_LIMIT) stop('exit');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT);
      if (!options.onStderrLine) return;
      const lines = (partLine + chunk).split(/\r\n|\r|\n/);
      partLine = lines.pop()!;
      for (const line of lines) options.onStderrLine(line);
    });
    child.on('error', (error) => {
      settle();
      reject(error);
    });
    child.on('close', (code, exitSignal) => {
      settle();
      if (code === 0 && !stoppedFor) return resolve(stdout);
      const failure = stoppedFor ?? (exitSignal === 'SIGXCPU' || /received signal 24\b/.test(stderr) ? 'cpu-limit' : 'exit');
      const how = {
        timeout: `ran past its time limit of ${Math.round((timeoutMs ?? 0) / 1000)} s`,
        'cpu-limit': `used up its ${cpuSeconds} s of CPU time`,
        aborted: 'was stopped: its job was lost',
        exit: exitSignal ? `was killed by ${exitSignal}` : `exited with code ${code}`,
      }[failure];
      const lastLines = stderr.split(/\r\n|\r|\n/).filter((line) => line && !PROGRESS_TIME.test(line)).slice(-3).join(' / ');
      reject(new FfmpegError(`${basename(binary)} ${how}${lastLines ? `: ${lastLines}` : ''}`, stderr, failure, code));
    });
  });
}

export interface FfmpegRunOptions extends Omit<ToolRunOptions, 'onStderrLine' | 'env'> {
  /** Receives how many seconds of output ffmpeg reports done so far. */
  onTime?: (seconds: number) => void;
}

/** Runs an invocation to completion with the chosen ffmpeg. */
export async function runFfmpeg(run: FfmpegInvocation, options: FfmpegRunOptions = {}): Promise<void> {
  const { onTime, ...limits } = options;
  await runFfmpegTool(ffmpegPath(), ffmpegArgs(run), {
    ...limits,
    cwd: run.cwd,
    // ffmpeg's own progress lines ("... time=00:00:12.34 ..."), read straight off stderr.
    ...(onTime && {
      onStderrLine: (line: string) => {
        const time = PROGRESS_TIME.exec(line)?.[1];
        if (time) onTime(timemarkSeconds(time));
      },
    }),
  });
}

const PROGRESS_TIME = /\btime=\s*(\d+:\d+:[\d.]+)/;

function timemarkSeconds(timemark: string): number {
  return timemark.split(':').reduce((total, part) => total * 60 + Number(part), 0) || 0;
}
