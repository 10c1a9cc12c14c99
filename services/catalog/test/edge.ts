// The nginx edge of edge/ (issue 28), started as a process of the test's own: its config rendered
// from the committed templates into a directory of its own, on a free loopback port. Debian's nginx
// with its JavaScript module (`apt-get install -y nginx-light libnginx-mod-http-js`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, freePort, tempDir } from '@cliffhanger/platform/testing';

const EDGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../edge');
const NGINX_MODULES = process.env.NGINX_MODULES ?? '/usr/lib/nginx/modules';

/** Why the edge cannot run here, or null when nginx and its JavaScript module are installed. */
export function edgeMissing(): string | null {
  if (spawnSync('nginx', ['-v']).error) return 'no nginx (apt-get install -y nginx-light libnginx-mod-http-js)';
  if (!fs.existsSync(path.join(NGINX_MODULES, 'ngx_http_js_module.so'))) return `no ngx_http_js_module.so in ${NGINX_MODULES} (apt-get install -y libnginx-mod-http-js)`;
  return null;
}

/** `${NAME}` filled from `values`, as envsubst does with a list of names: nginx's own `$name` stays. */
export function renderTemplate(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

export interface Edge {
  url: string;
  close(): Promise<void>;
}

export interface EdgeOptions {
  /** DATA_DIR/media: the ladder's files, laid out by key. */
  mediaRoot: string;
  /** Where the catalog's /media answers the playlists it renders (master, subtitles). */
  origin: string;
  mediaSecret: string;
  allowOrigin?: string;
}

/** nginx on a free port, serving `mediaRoot` from disk; stopped by close(). */
export async function startEdge(options: EdgeOptions): Promise<Edge> {
  const dir = tempDir('cliffhanger-edge-');
  const port = await freePort();
  const values: Record<string, string> = {
    NGINX_MODULES,
    EDGE_RUN_DIR: dir,
    EDGE_CACHE_DIR: path.join(dir, 'cache'),
    EDGE_CACHE_SIZE: '100m',
    EDGE_CONF_DIR: dir,
    EDGE_LISTEN: `127.0.0.1:${port}`,
    EDGE_WORKER_PROCESSES: 'auto',
    EDGE_ALLOW_ORIGIN: options.allowOrigin ?? 'http://127.0.0.1',
    MEDIA_ORIGIN: options.origin,
    MEDIA_EDGE_STORE: 'disk',
    MEDIA_ROOT: options.mediaRoot,
  };
  for (const file of fs.readdirSync(EDGE_DIR)) {
    const text = fs.readFileSync(path.join(EDGE_DIR, file), 'utf8');
    if (file.endsWith('.template')) fs.writeFileSync(path.join(dir, file.slice(0, -'.template'.length)), renderTemplate(text, values));
    else if (file.endsWith('.js')) fs.writeFileSync(path.join(dir, file), text);
  }
  // As root, nginx's workers run as nobody: they must read the config and the media.
  for (const readable of [dir, options.mediaRoot, path.dirname(options.mediaRoot)]) fs.chmodSync(readable, 0o755);
  const child: ChildProcess = spawn('nginx', ['-e', 'stderr', '-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    env: { PATH: process.env.PATH, MEDIA_SECRET: options.mediaSecret },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk) => (errors += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`nginx exited: ${errors}`);
        return fetch(`${url}/healthz`).then((answer) => answer.ok, () => false);
      },
      20_000,
      'the nginx edge to answer',
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    async close() {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
