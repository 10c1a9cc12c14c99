import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { repoRoot, startSiteProcess } from '@cliffhanger/platform/testing';

export const REPO_ROOT = repoRoot;

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
  /** Notes a secret the suite used (a token, a grant, a card number): `secretsInOutput` looks for it. */
  keepSecret: (value: string) => void;
  /** The kept secrets that appear anywhere in the server's output since it started (each shortened): none, for a sound site. */
  secretsInOutput: () => string[];
  /** Throws, with the server's last output, when the server has exited; long waits call it to fail fast. */
  assertRunning: () => void;
  stop: () => Promise<void>;
}

let built = false;

/** Builds storefront/dist and dist-ssr from the current sources, as `npm start` does before it starts the gateway; once per run. */
function buildStorefront(): void {
  if (process.env.E2E_SKIP_BUILD === '1' || built) return;
  built = true;
  // The browser's build, the operators' console, then the gateway's renderer of first screens (storefront/package.json, "build").
  for (const args of [['build'], ['build', '--mode', 'console'], ['build', '--ssr', 'src/entry-server.tsx']]) {
    execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'vite'), [...args, '--logLevel', 'warn'], {
      cwd: join(REPO_ROOT, 'storefront'),
      stdio: 'inherit',
    });
  }
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
      // A server the suite did not start: its output is not the suite's to read.
      keepSecret: () => undefined,
      secretsInOutput: () => [],
      assertRunning: () => undefined,
      stop: async () => undefined,
    };
  }
  buildStorefront();
  const adminToken = randomBytes(24).toString('hex');
  // Everything the server wrote, for the search for secrets (bounded: a run writes a few hundred KB).
  let everything = '';
  const secrets = new Set<string>();
  const site = await startSiteProcess({
    dataDirPrefix: 'cliffhanger-e2e-',
    // Two episodes of each demo series are all a suite plays: the other 69 would only transcode in the
    // background for the whole run, taking the cores the browser's page loads and players are measured on.
    env: { ADMIN_TOKEN: adminToken, DEMO_EPISODES: '2', ...options.env },
    onOutput: (text) => {
      if (everything.length < 64_000_000) everything += text;
    },
  });
  const baseUrl = site.origin;
  secrets.add(adminToken);
  return {
    baseUrl,
    adminToken,
    output: site.output,
    keepSecret: (value) => void (value.length >= 8 && secrets.add(value)),
    secretsInOutput: () => [...secrets].filter((secret) => everything.includes(secret)).map((secret) => `${secret.slice(0, 6)}…`),
    assertRunning: site.assertRunning,
    stop: site.stop,
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}
