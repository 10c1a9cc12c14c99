import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, freePort } from './fixtures.ts';

/** The repository's root, where `gateway/src/main.ts` and node_modules are. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** The site's process is gone: waiting longer cannot help (`eventually`'s `stopOn: SiteExited`). */
export class SiteExited extends Error {}

export interface SiteProcessOptions {
  /** Settings on top of this process's environment and PORT, HOST and DATA_DIR. */
  env?: Record<string, string>;
  /** The port to listen on (default: a free one). */
  port?: number;
  /** The data directory to start on, kept at stop (default: a fresh one, removed at stop). */
  dataDir?: string;
  /** The fresh data directory's prefix. */
  dataDirPrefix?: string;
  /** How long GET /readyz may take to answer 200 (default 10 minutes: a demo catalog transcodes first). */
  readyTimeoutMs?: number;
  /** What the wait for /readyz is called in its timeout message. */
  readyWhat?: string;
  /** Every chunk of output as it comes, beside the last 20 KB that `output()` keeps. */
  onOutput?: (text: string) => void;
  /** Copies the server's stderr to this process's stderr (benchmarks: its warnings stay in sight). */
  echoErrors?: boolean;
}

export interface SiteProcess {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** The server's last output (20 KB). */
  output: () => string;
  /** Throws SiteExited, with the server's last output, when the server has exited. */
  assertRunning: () => void;
  /** SIGTERM, SIGKILL after 15 s, then the data directory removed if it was made for it. */
  stop: () => Promise<void>;
}

/**
 * The real site as `npm start` runs it (`gateway/src/main.ts` under tsx) on a loopback port with its
 * own data directory, once GET /readyz answers 200. The one site process of the e2e suite and the
 * benchmarks.
 */
export async function startSiteProcess(options: SiteProcessOptions = {}): Promise<SiteProcess> {
  const port = options.port ?? (await freePort());
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), options.dataDirPrefix ?? 'cliffhanger-site-')));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'gateway/src/main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    log = (log + text).slice(-20_000);
    options.onOutput?.(text);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', (chunk: Buffer) => {
    keep(chunk);
    if (options.echoErrors) process.stderr.write(chunk);
  });
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );

  const origin = `http://127.0.0.1:${port}`;
  const assertRunning = () => {
    if (exited) throw new SiteExited(`the server exited (${child.exitCode ?? child.signalCode}):\n${log}`);
  };
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    }
    if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // With the demo catalog on, /readyz answers 503 until a first episode is transcoded and playable.
    await eventually(
      async () => {
        assertRunning();
        return (await fetch(`${origin}/readyz`)).status === 200;
      },
      { timeoutMs: options.readyTimeoutMs ?? 600_000, what: options.readyWhat ?? 'GET /readyz', intervalMs: 500, stopOn: SiteExited },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, port, dataDir, child, output: () => log, assertRunning, stop };
}
