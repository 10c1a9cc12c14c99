import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];

export interface RunningSite {
  baseUrl: string;
  /** The admin API's bearer token: made up for a site the suite starts, E2E_ADMIN_TOKEN for one already running. */
  adminToken: string | undefined;
  output: () => string;
  /** Throws, with the server's last output, when the server has exited; long waits call it to fail fast. */
  assertRunning: () => void;
  stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

let built = false;

/** Builds storefront/dist and dist-ssr from the current sources, as `npm start` does before it starts the gateway; once per run. */
function buildStorefront(): void {
  if (process.env.E2E_SKIP_BUILD === '1' || built) return;
  built = true;
  // The browser's build, then the gateway's renderer of first screens (storefront/package.json, "build").
  for (const args of [['build'], ['build', '--ssr', 'src/entry-server.tsx']]) {
    execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'vite'), [...args, '--logLevel', 'warn'], {
      cwd: join(REPO_ROOT, 'storefront'),
      stdio: 'inherit',
    });
  }
}

/** The site's process is gone: waiting longer cannot help. */
export class SiteExited extends Error {}

export async function poll<T>(what: string, timeoutMs: number, attempt: () => Promise<T | undefined>, everyMs = 1000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof SiteExited) throw error;
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}

export interface SiteOptions {
  /** More settings for a site the suite starts (pixel ids, DEMO=0); a site already running keeps its own. */
  env?: Record<string, string>;
  /** Starts a site even when E2E_BASE_URL names one: for a check that needs settings of its own. */
  own?: boolean;
}

/**
 * Starts the real site (`tsx gateway/src/main.ts`) on a free port with a fresh data directory, or, when
 * E2E_BASE_URL is set, uses the site already running there (a deployment, or a dev server).
 */
export async function startSite(options: SiteOptions = {}): Promise<RunningSite> {
  const existing = options.own ? undefined : process.env.E2E_BASE_URL;
  if (existing) {
    return {
      baseUrl: existing.replace(/\/$/, ''),
      adminToken: process.env.E2E_ADMIN_TOKEN,
      output: () => '',
      assertRunning: () => undefined,
      stop: async () => undefined,
    };
  }
  buildStorefront();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'cliffhanger-e2e-'));
  const adminToken = randomBytes(24).toString('hex');
  let log = '';
  const child: ChildProcess = spawn(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['gateway/src/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });

  const baseUrl = `http://127.0.0.1:${port}`;
  const assertRunning = () => {
    if (exited) throw new SiteExited(`the server exited:\n${log}`);
  };
  const stop = async () => {
    if (!exited) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // With the demo catalog on, /readyz answers 503 until a first episode is transcoded and playable.
    await poll('GET /readyz', 600_000, async () => {
      assertRunning();
      const response = await fetch(`${baseUrl}/readyz`);
      return response.status === 200 ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, adminToken, output: () => log, assertRunning, stop };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}
