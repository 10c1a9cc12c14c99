import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

export const benchDir = path.dirname(fileURLToPath(import.meta.url));

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a server script in its own process (so it does not share a core with the load generator).
 * With BENCH_PROF=<dir> each server writes a CPU profile there when it stops (node --cpu-prof).
 */
export async function startServer(script: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const profile = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', path.join(benchDir, script)], {
    // Production needs a mail server and a public address (nothing here mails) and, with no Stripe key,
    // the sandbox asked for by name (nothing here pays); a benchmark sends one address's worth of
    // guests and hits far over the per-address limits.
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      SMTP_URL: 'smtp://127.0.0.1:2525',
      PUBLIC_URL: 'http://127.0.0.1:8080',
      PAYMENT_PROVIDER: 'sandbox',
      RATE_LIMIT_GUEST_PER_MINUTE: '1000000',
      RATE_LIMIT_HISTORY_PER_MINUTE: '1000000',
      RATE_LIMIT_PIXEL_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 120 s`)), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening (http:\/\/\S+)/.exec(chunk.toString());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs one statement on its own connection to `url` (creating or dropping a scratch database, a vacuum). */
export async function adminStatement(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Requests per second against `url`: a 1 s warm-up, then `seconds` measured, 10 connections. */
export async function requestsPerSecond(url: string, headers: Record<string, string> = {}, seconds = 5): Promise<number> {
  await autocannon({ url, headers, connections: 10, duration: 1 });
  const result = await autocannon({ url, headers, connections: 10, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

/**
 * Every side in turns, three rounds of 2 s (after a 1 s warm-up each), the median of each side:
 * on shared cores a neighbour's burst then slows all sides alike instead of only one.
 */
export async function interleaved(sides: { url: string; headers?: Record<string, string> }[]): Promise<number[]> {
  const rounds: number[][] = sides.map(() => []);
  for (let round = 0; round < 3; round++)
    for (const [i, side] of sides.entries()) rounds[i]!.push(await requestsPerSecond(side.url, side.headers, 2));
  return rounds.map((values) => [...values].sort((a, b) => a - b)[1]!);
}

const rps = (value: number) => `${Math.round(value).toLocaleString('en-US')} rps`;

/** The one line a benchmark prints: the figure as a ratio against its baseline from the same run. */
export function report(name: string, subject: [string, number], baseline: [string, number], goal: number | null): string {
  const ratio = subject[1] / baseline[1];
  const line = `${name}: ${subject[0]} ${rps(subject[1])} / ${baseline[0]} ${rps(baseline[1])} = ${ratio.toFixed(2)} (${goal === null ? 'for reference' : `goal >= ${goal}`})`;
  console.log(line);
  return line;
}
